"""What the output formats share: HTML pages and pictures, check texts, safe file names, the
class's known mistakes."""
