#!/usr/bin/env python3
"""wiretap: run a bot and copy every line between it and the referee to stderr.

    arbiter play battleship -p a:hunt \
        -p "me:cmd:python3 examples/wiretap.py python3 bots/python/battleship_bot.py" \
        --stderr-dir logs
    cat logs/me.stderr

Every line the referee sends is written to stderr as "<- LINE", every line the bot answers as
"-> LINE", then passed on unchanged. The bot's own stderr goes to the same place. Works for
every game, turn-based or real-time, because it copies both directions independently.
Standard library only.
"""
import subprocess
import sys
import threading

log_lock = threading.Lock()


def log(prefix, line):
    with log_lock:
        sys.stderr.write(prefix + line.decode("utf-8", "replace").rstrip("\n") + "\n")
        sys.stderr.flush()


def referee_to_bot(bot):
    """Copies our stdin (the referee) to the bot's stdin."""
    try:
        for line in sys.stdin.buffer:
            log("<- ", line)
            bot.stdin.write(line)
            bot.stdin.flush()
    except (BrokenPipeError, ValueError, OSError):
        pass
    try:
        bot.stdin.close()
    except (BrokenPipeError, OSError):
        pass


def main():
    if len(sys.argv) < 2:
        sys.stderr.write("usage: wiretap.py PROGRAM [ARGS...]\n")
        return 2
    bot = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    threading.Thread(target=referee_to_bot, args=(bot,), daemon=True).start()
    out = sys.stdout.buffer
    try:
        for line in bot.stdout:
            log("-> ", line)
            out.write(line)
            out.flush()
    except (BrokenPipeError, OSError):
        pass
    return bot.wait()


if __name__ == "__main__":
    sys.exit(main())
