"""Naming the mistake: an item that lost points is replayed on the catalogue's known mistakes."""
