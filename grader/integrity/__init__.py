"""Who shared work: the integrity report's analysis (``grader.reporters.integrity_report`` writes it).

Two kinds of evidence, per graded item and per pair of students:

- ``code``: the code a student wrote for an item (its ``def`` or ``class``, as the grader loads
  the cells), normalised (``normalise``) and fingerprinted (``fingerprints``), with everything
  public subtracted (``public``: the release's starter code and solutions, the bundle's
  catalogue, ``--known-sources``);
- ``behaviour``: what the student's code returned on the item's hidden checks, as a digest
  the worker records for items that lost points (``behaviour``).

``evidence`` indexes both for the whole class and scores the pairs against what the class
shares by chance (``chance``); ``listing`` says which pairs are listed and how they read;
``origins`` names the students who hand in the instructor's solution, and the
``--known-sources`` a student's code matches; ``page`` draws them. ``cells`` bounds what is
parsed (a cell, a notebook), and ``winnowing`` turns tokens into fingerprints.
"""
