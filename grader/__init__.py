"""An autograder engine that never runs student code in-process, for any assignment bundle.

Its packages and modules, floor by floor from the command line down. Each imports only those
listed below it, so the records every stage shares are near the ground and nothing points back
up (tests/test_layout.py holds the code to this list; docs/operators/architecture.md draws it,
each module with its first sentence):

    cli             the thin command line: parses, then calls one verb's library function
    audit           `audit`: the bundle's checks proved on its reference, stubs and catalogue
    authoring       `new-item`: a new item's pieces written into a bundle
    generate        what is generated into a bundle by hand: the sample class, its LMS downloads
    nbgrader        nbgrader's course: the release, its gradebook, `grade --nbgrader`
    studentcheck    the students' check.py: generated from the public checks, and its runtime
    gradescope_zip  `gradescope`: the autograder zip, and the run its run_autograder does
    run             `grade` in the main process: plan, intake, pools, output folder, summary
    worker          a trusted worker's process: its bundle and zygote, one submission scored
    reporters       one module per --format, each fed the stream of results
    regrade         a run compared with the one it replaces in the output folder
    integrity       who shared work: code fingerprinted, replies digested, pairs scored, the page
    diagnosis       which known mistake of the catalogue reproduces a student's replies
    checks          the library a bundle's checks are written with
    sandbox         running student code isolated: the warm image, zygotes, the sandboxed child
    runners         one loaded notebook answering the checks' requests (serve, in-process)
    lms             Canvas and Moodle downloads turned into a class folder
    submissions     student folders and files found and read as hostile, never run
    written         written answers' marks read from written.csv, merged, and their outputs
    render          what the outputs share: words and points, HTML, feedback text, file names
    wire            the plain-data protocol between the trusted side and a sandbox
    records         the records every stage shares: results, answers, code, the rung, the job
    assignment      a bundle: its YAML as records, its checks' registry, reference, catalogue
    cgroups         this process's cgroup folders
    extras          a missing dependency or optional part as a one-line usage error
    stop            the signals that stop a run
    threads         one thread for BLAS, OpenMP and torch
    frames          length-prefixed JSON frames between processes
    atomic          a file or folder written whole: a temporary sibling renamed into place
    linux           libc loaded once, the kernel's constants, thin wrappers

This module stays import-light: the sandbox's warm zygote imports it.
"""

__version__ = "0.1.0"
