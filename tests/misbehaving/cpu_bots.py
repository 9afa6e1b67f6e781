#!/usr/bin/env python3
"""Two Battleship players for tests/e2e/starvation_e2e.py, each the example bot
(bots/python/battleship_bot.py, copied beside this file) with one habit:

  cpu_bots.py victim SECONDS   spends SECONDS of its own CPU time before every shot (a bot that
                               thinks), so its per-call times show how much CPU it was given
  cpu_bots.py hog N            forks N processes that spin for ever, then plays on as usual:
                               the attack on its opponent's CPU
  cpu_bots.py slow SECONDS     sleeps SECONDS before every shot: a match that lasts a known time
                               (tests/e2e/slowloris_e2e.py watches one)
"""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    role, amount = sys.argv[1], float(sys.argv[2])
    del sys.argv[1:3]
    sys.path.insert(0, HERE)
    import battleship_bot  # noqa: E402 - copied beside this file by the test
    if role == "hog":
        for _ in range(int(amount)):
            try:
                if os.fork() == 0:
                    while True:
                        pass
            except OSError:
                break
    elif role == "slow":
        shoot = battleship_bot.choose_shots

        def sleepy(*args, **kwargs):
            time.sleep(amount)
            return shoot(*args, **kwargs)
        battleship_bot.choose_shots = sleepy
    elif role == "victim":
        shoot = battleship_bot.choose_shots

        def thinking(*args, **kwargs):
            until = time.process_time() + amount
            while time.process_time() < until:
                pass
            return shoot(*args, **kwargs)
        battleship_bot.choose_shots = thinking
    battleship_bot.main()


if __name__ == "__main__":
    main()
