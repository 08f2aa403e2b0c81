"""nbgrader's course: releasing the student notebooks, grading a course's submissions into its
gradebook, and the hidden tests its notebooks call."""
