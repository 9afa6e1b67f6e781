// A Battleship bot for arbiter: one JSON message per line on stdin, one answer per line on stdout.
// Its fleet goes in the first places that fit, scanning the grid; it fires next to its open hits
// first, then on a checkerboard (every ship covers a cell of each colour), then anywhere left.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
)

type Config struct {
	Rows  int   `json:"rows"`
	Cols  int   `json:"cols"`
	Ships []int `json:"ships"`
	Salvo bool  `json:"salvo"`
}

type Ship struct {
	Length int    `json:"length"`
	Row    int    `json:"row"`
	Col    int    `json:"col"`
	Dir    string `json:"dir"`
}

type Shot struct {
	Row    int    `json:"row"`
	Col    int    `json:"col"`
	Result string `json:"result,omitempty"`
}

type View struct {
	Config   Config `json:"config"`
	Fleet    []Ship `json:"fleet"`
	Incoming []Shot `json:"incoming"`
	Outgoing []Shot `json:"outgoing"`
}

type Cell struct{ Row, Col int }

func cells(s Ship) []Cell {
	var out []Cell
	for i := 0; i < s.Length; i++ {
		if s.Dir == "v" {
			out = append(out, Cell{s.Row + i, s.Col})
		} else {
			out = append(out, Cell{s.Row, s.Col + i})
		}
	}
	return out
}

func placeFleet(c Config) []Ship {
	taken := map[Cell]bool{}
	lengths := append([]int(nil), c.Ships...)
	sort.Sort(sort.Reverse(sort.IntSlice(lengths)))
	var fleet []Ship
	for _, length := range lengths {
		found := false
		for r := 0; r < c.Rows && !found; r++ {
			for col := 0; col < c.Cols && !found; col++ {
				for _, d := range []string{"h", "v"} {
					s := Ship{length, r, col, d}
					ok := true
					for _, p := range cells(s) {
						if p.Row >= c.Rows || p.Col >= c.Cols || taken[p] {
							ok = false
						}
					}
					if ok {
						fleet, found = append(fleet, s), true
						// Keep a cell of water around each ship, so that it fits no_touch too.
						for _, p := range cells(s) {
							for dr := -1; dr <= 1; dr++ {
								for dc := -1; dc <= 1; dc++ {
									taken[Cell{p.Row + dr, p.Col + dc}] = true
								}
							}
						}
						break
					}
				}
			}
		}
	}
	return fleet
}

func shots(v View) interface{} {
	c := v.Config
	tried := map[Cell]bool{}
	var order []Cell
	for _, s := range v.Outgoing {
		tried[Cell{s.Row, s.Col}] = true
		if s.Result == "hit" {
			order = append(order, Cell{s.Row - 1, s.Col}, Cell{s.Row + 1, s.Col}, Cell{s.Row, s.Col - 1}, Cell{s.Row, s.Col + 1})
		}
	}
	for parity := 0; parity < 2; parity++ {
		for r := 0; r < c.Rows; r++ {
			for col := 0; col < c.Cols; col++ {
				if parity == 1 || (r+col)%2 == 0 {
					order = append(order, Cell{r, col})
				}
			}
		}
	}
	want := 1
	if c.Salvo {
		hit := map[Cell]bool{}
		for _, s := range v.Incoming {
			if s.Result != "miss" {
				hit[Cell{s.Row, s.Col}] = true
			}
		}
		want = 0
		for _, ship := range v.Fleet {
			for _, p := range cells(ship) {
				if !hit[p] {
					want++
					break
				}
			}
		}
	}
	var chosen []Shot
	for _, p := range order {
		if p.Row < 0 || p.Col < 0 || p.Row >= c.Rows || p.Col >= c.Cols || tried[p] {
			continue
		}
		tried[p] = true
		chosen = append(chosen, Shot{Row: p.Row, Col: p.Col})
		if len(chosen) == want {
			break
		}
	}
	if c.Salvo {
		return chosen
	}
	return chosen[0]
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<21)
	for in.Scan() {
		var msg []json.RawMessage
		if json.Unmarshal(in.Bytes(), &msg) != nil || len(msg) != 2 {
			continue
		}
		var method string
		json.Unmarshal(msg[0], &method)
		var args []json.RawMessage
		json.Unmarshal(msg[1], &args)
		var answer interface{} = "void"
		switch method {
		case "ejected": // the referee says why this bot is out; no answer
			var why struct{ Verdict, Call, Detail string }
			json.Unmarshal(args[0], &why)
			fmt.Fprintf(os.Stderr, "ejected: %s during %s: %s\n", why.Verdict, why.Call, why.Detail)
			return
		case "setup":
			var c Config
			json.Unmarshal(args[0], &c)
			answer = placeFleet(c)
		case "take-turn":
			var v View
			json.Unmarshal(args[0], &v)
			answer = shots(v)
		}
		out, _ := json.Marshal(answer)
		fmt.Println(string(out))
		if method == "win" {
			return
		}
	}
}
