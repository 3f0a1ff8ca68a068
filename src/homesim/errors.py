"""Errors about bad input data, always naming the file and the field at fault."""


class DataError(ValueError):
    """A malformed or inconsistent input file: `where` is the file (and record), `field` the bad field."""

    def __init__(self, where: str, field: str, problem: str) -> None:
        super().__init__(f"{where}: {field}: {problem}")
        self.where, self.field, self.problem = where, field, problem
