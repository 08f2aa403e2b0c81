"""Learning-management-system downloads as a class: Canvas's "Download Submissions" and
Moodle's "Download all submissions", as a zip or its unpacked folder.

``names`` parses the file names each LMS writes, ``safezip`` reads a zip without letting it
write outside its folder, and ``intake`` turns a download into the folder-per-student class
the rest of the grader reads (the engine downstream does not know where a class came from).
"""
