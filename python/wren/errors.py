"""Errors that are the user's to fix."""


class UserError(Exception):
    """A mistake of the user's (a bad scenario file, a capture path that
    cannot be written): ./wren prints the message on one line, prefixed with
    "wren: ", and exits with status 2, without a traceback."""
