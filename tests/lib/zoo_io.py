"""Output helpers shared by the misbehaving fixture players in tests/misbehaving (standard
library only)."""
import os
import sys


def machine_pid():
    """This process's PID as the machine sees it, also inside a PID namespace (where getpid()
    is the namespace's own number) as long as /proc is the machine's."""
    try:
        return int(os.readlink("/proc/self"))
    except (OSError, ValueError):
        return os.getpid()


def write_raw(data):
    """Writes bytes to stdout as they are; a referee that has closed the pipe ends the process."""
    try:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    except BrokenPipeError:
        os._exit(0)
