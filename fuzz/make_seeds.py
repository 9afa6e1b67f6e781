#!/usr/bin/env python3
"""Writes the seed corpora of fuzz/corpus/ from the golden logs (tests/golden) and small valid
messages of each codec. Run from the repository root; the output is committed, so this is only
needed when the formats change."""
import json
import os
import zlib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUT = os.path.join(ROOT, "fuzz", "corpus")


def write(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def compact(j):
    return json.dumps(j, separators=(",", ":"), sort_keys=True)


def golden(name):
    with open(os.path.join(ROOT, "tests", "golden", name)) as f:
        return [json.loads(line) for line in f if line.strip()]


# Codec seeds: the first few distinct args and replies of each call of the golden logs.
for target, log in (("q_codec", "q_4p_bad_actors_seed7.jsonl"),
                    ("battleship_codec", "battleship_salvo_density_hunt_seed3.jsonl")):
    lines = golden(log)
    write(target, "config", compact(lines[0]["config"]))
    seen = {}
    for line in lines:
        if line.get("type") != "call":
            continue
        for field in ("args", "reply"):
            if field in line:
                key = f"{line['call']}_{field}"
                if seen.get(key, 0) < 3:
                    write(target, f"{key}_{seen.get(key, 0)}", compact(line[field]))
                    seen[key] = seen.get(key, 0) + 1
write("q_codec", "tile", '{"color":"red","shape":"star"}')
write("q_codec", "pass", '"pass"')
write("battleship_codec", "setup_args", '[{"rows":10,"cols":10,"ships":[5,4,3,3,2]}]')
write("battleship_codec", "shot_result", '{"row":1,"col":2,"result":"sunk","length":3}')

# Game logs: a short Q and Battleship log (the header and the first calls) and a whole one.
for name, log, keep in (("q_short", "q_2p_dag_ldasg_seed1.jsonl", 6),
                        ("battleship_short", "battleship_salvo_density_hunt_seed3.jsonl", 5),
                        ("q_whole", "q_2p_dag_ldasg_seed1.jsonl", None)):
    lines = golden(log)
    chosen = lines if keep is None else lines[:keep] + [lines[-1]]
    write("game_log", name, "".join(compact(l) + "\n" for l in chosen))

ss_config = {"players": 2, "hand": 21, "start": 7, "bag": 144, "dictionary": "builtin"}
write("speed_scrabble_codec", "config", compact(ss_config))
write("speed_scrabble_codec", "submit", '["submit",[["CAT..","..O..","..G.."]]]')
write("speed_scrabble_codec", "new_tiles", '["new-tiles",[["A","E","Q"]]]')
write("speed_scrabble_codec", "verdict", '["verdict",[3,"accepted"]]')
write("speed_scrabble_codec", "setup", '["setup",[' + compact(ss_config) + ',["A","B","C"]]]')
write("speed_scrabble_codec", "board", '["CAT","A..","T.."]')

puzzle = {"n": 2, "grid": [[0, 0, 1, 2], [0, 1, 1, 2], [0, 1, 2, 2]]}
write("dominosa_codec", "puzzle_json", compact(puzzle))
write("dominosa_codec", "puzzle_text", "0 0 1 2\n0 1 1 2\n0 1 2 2\n")
write("dominosa_codec", "puzzle_id", "2:aabcabbcabcc")
write("dominosa_codec", "setup", '["setup",[' + compact(puzzle) + ']]')
write("dominosa_codec", "submit", '["submit",["LRLRLRLRLRLR"]]')
write("dominosa_codec", "verdict", '["verdict",["accepted"]]')
write("dominosa_codec", "config", '{"n":3,"level":"basic","stall_seconds":10}')

write("abalone_codec", "config", '{"winning_score":6,"max_pieces":14,"black_start":"B-1",'
      '"white_start":"H1","cycles_per_turn":20,"game_length":20000}')
write("abalone_codec", "commitments", '[{"pid":1,"dir":0},{"pid":2,"dir":6}]')

# Framer: the first byte chooses the framing (even: lines, odd: values), the second the cap.
write("framer", "lines", b"\x00\x30" + b'["setup",[1]]\n{"a":"b"}\n\n[1,2\n"x"\n')
write("framer", "values", b"\x01\x30" + b'["start"][1] {"k":[true,null]} 12 "s\\"t" ')

for toml in ("league.toml", "q.toml", "abalone.toml"):
    with open(os.path.join(ROOT, "examples", toml)) as f:
        write("spec", toml, f.read())
write("spec", "terms", 'game = "q"\nmemory = "512M"\ncpu_time = "60s"\nclock = "10s+0.1s"\n'
      '[[player]]\nname = "a"\nbot = "cmd:./a"\nprocesses = 4\n[[player]]\nname = "b"\nbot = "dag"\n')

spec = {"name": "t", "game": "q", "players": [{"name": "a", "bot": "dag"}, {"name": "b",
        "bot": "cmd:./b", "program": {"memory": 1 << 29}}], "schedule": "swiss", "seats": 2,
        "rounds": 3, "seed": 9, "config": None, "per_call_ms": 100, "hero": "a",
        "clock": "10s+1s"}
write("store_rows", "log_plain", b"\x00" + b'{"type":"match"}\n')
write("store_rows", "log_packed", b"\x00ZLB1" + zlib.compress(b'{"type":"match"}\n'))
tails = [{"seat": "a", "bytes": 12, "tail": "panic\n"}]
write("store_rows", "tails", b"\x01ZLB1" + zlib.compress(compact(tails).encode()))
write("store_rows", "spec", b"\x02" + compact(spec).encode())
rows = [{"round": 0, "spec": {"seats": [0, 1], "seed": 5},
         "result": {"winners": [0], "ejections": [], "scores": [10, 3]}},
        {"round": 0, "spec": {"seats": [2, 3], "seed": 6},
         "result": {"winners": [], "ejections": [{"seat": 1, "why": "timeout"}], "scores": [1, 1],
                    "stderr_bytes": {"0": 5}}},
        {"round": 1, "spec": {"seats": [0, 2], "seed": 7}, "result": {"error": "crashed"}}]
write("store_rows", "results", b"\x03" + compact(rows).encode())


def bot_archives():
    """Small uploads of a bot: a tar.gz and a zip of a Python kit, and a plain tar with a link."""
    import io
    import tarfile
    import zipfile
    kit = os.path.join(ROOT, "bots", "kits", "python", "q")
    files = {name: open(os.path.join(kit, name), "rb").read()[:600]
             for name in ("arbiter-bot.toml", "bot.py")}
    for mode, name in (("w:gz", "kit.tar.gz"), ("w", "kit.tar")):
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode=mode, format=tarfile.USTAR_FORMAT) as t:
            for n, data in files.items():
                info = tarfile.TarInfo("q/" + n)
                info.size = len(data)
                t.addfile(info, io.BytesIO(data))
            link = tarfile.TarInfo("q/same.py")
            link.type = tarfile.SYMTYPE
            link.linkname = "bot.py"
            t.addfile(link)
        write("bot_archive", name, buf.getvalue())
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for n, data in files.items():
            z.writestr(n, data)
    write("bot_archive", "kit.zip", buf.getvalue())


bot_archives()
