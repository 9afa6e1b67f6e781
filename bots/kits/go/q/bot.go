// A Q bot for arbiter: one JSON message per line on stdin, one answer per line on stdout.
// It places the first tile of its hand that fits next to the map, at the first such spot; with
// no fit it swaps its hand if the referee has tiles enough, else it passes.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
)

type Tile struct {
	Color string `json:"color"`
	Shape string `json:"shape"`
}

type Spot struct{ Row, Col int }

type Pub struct {
	Map     [][]json.RawMessage `json:"map"`
	Players []json.RawMessage   `json:"players"`
	Pile    int                 `json:"tile*"`
}

type Placement struct {
	Coordinate struct {
		Row    int `json:"row"`
		Column int `json:"column"`
	} `json:"coordinate"`
	Tile Tile `json:"1tile"`
}

func fitsLine(a *Tile, t Tile, b *Tile) bool {
	if a != nil && b != nil {
		return (a.Shape == t.Shape && b.Shape == t.Shape) || (a.Color == t.Color && b.Color == t.Color)
	}
	if a == nil {
		a = b
	}
	return a == nil || a.Shape == t.Shape || a.Color == t.Color
}

func takeTurn(pub Pub) interface{} {
	board := map[Spot]Tile{}
	for _, row := range pub.Map {
		var r int
		json.Unmarshal(row[0], &r)
		for _, cell := range row[1:] {
			var pair []json.RawMessage
			json.Unmarshal(cell, &pair)
			var c int
			var t Tile
			json.Unmarshal(pair[0], &c)
			json.Unmarshal(pair[1], &t)
			board[Spot{r, c}] = t
		}
	}
	var me struct {
		Hand []Tile `json:"tile*"`
	}
	json.Unmarshal(pub.Players[0], &me)
	at := func(r, c int) *Tile {
		if t, ok := board[Spot{r, c}]; ok {
			return &t
		}
		return nil
	}
	seen := map[Spot]bool{}
	var spots []Spot
	for s := range board {
		for _, d := range []Spot{{-1, 0}, {1, 0}, {0, -1}, {0, 1}} {
			n := Spot{s.Row + d.Row, s.Col + d.Col}
			if _, taken := board[n]; !taken && !seen[n] {
				seen[n] = true
				spots = append(spots, n)
			}
		}
	}
	sort.Slice(spots, func(i, j int) bool {
		return spots[i].Row < spots[j].Row || (spots[i].Row == spots[j].Row && spots[i].Col < spots[j].Col)
	})
	for _, t := range me.Hand {
		for _, s := range spots {
			if fitsLine(at(s.Row, s.Col-1), t, at(s.Row, s.Col+1)) && fitsLine(at(s.Row-1, s.Col), t, at(s.Row+1, s.Col)) {
				var p Placement
				p.Coordinate.Row, p.Coordinate.Column, p.Tile = s.Row, s.Col, t
				return []Placement{p}
			}
		}
	}
	if pub.Pile >= len(me.Hand) {
		return "replace"
	}
	return "pass"
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
		if method == "ejected" { // the referee says why this bot is out; no answer
			var why struct{ Verdict, Call, Detail string }
			json.Unmarshal(args[0], &why)
			fmt.Fprintf(os.Stderr, "ejected: %s during %s: %s\n", why.Verdict, why.Call, why.Detail)
			return
		}
		var answer interface{} = "void"
		if method == "take-turn" {
			var pub Pub
			json.Unmarshal(args[0], &pub)
			answer = takeTurn(pub)
		}
		out, _ := json.Marshal(answer)
		fmt.Println(string(out))
		if method == "win" {
			return
		}
	}
}
