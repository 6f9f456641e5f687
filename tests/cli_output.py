"""What the CLI tests read of a command that worked: the other half of
`helpers.one_line_error`'s contract."""

from __future__ import annotations

from click.testing import Result


def output_of(result: Result) -> str:
    """The contract of a command that worked: exit status 0 and no exception
    (both shown, with what it printed, when not); returns its stdout."""
    assert result.exit_code == 0 and result.exception is None, (result.exit_code, result.exception, result.output)
    return result.stdout
