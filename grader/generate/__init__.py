"""What the generators write into a bundle, run by hand when the bundle changes (their tests
fail when the committed copies drift): ``sample_class`` the sample class's generated students,
``lms_downloads`` that class as Canvas and Moodle hand it out. No grading run imports them."""
