### BEGIN HIDDEN TESTS
from grader.nbgrader.hidden_tests import assert_item
assert_item("__NAME__", globals())
### END HIDDEN TESTS
