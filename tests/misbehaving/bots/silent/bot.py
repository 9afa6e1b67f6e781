#!/usr/bin/env python3
"""Fails `bot check`'s "starts": reads setup and never answers."""
import sys
import time

sys.stdin.readline()
time.sleep(600)
