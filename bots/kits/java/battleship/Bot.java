// A Battleship bot for arbiter: one JSON message per line on stdin, one answer per line on stdout.
// Its fleet goes in the first places that fit, scanning the grid; it fires next to its open hits
// first, then on a checkerboard (every ship covers a cell of each colour), then anywhere left.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

public final class Bot {
  @SuppressWarnings("unchecked")
  static Map<String, Object> obj(Object o) { return (Map<String, Object>) o; }

  @SuppressWarnings("unchecked")
  static List<Object> list(Object o) { return (List<Object>) o; }

  static int num(Object o) { return ((Double) o).intValue(); }

  static List<int[]> cells(int row, int col, int length, String dir) {
    List<int[]> out = new ArrayList<>();
    for (int i = 0; i < length; i++) out.add(dir.equals("v") ? new int[] {row + i, col} : new int[] {row, col + i});
    return out;
  }

  static String key(int r, int c) { return r + "," + c; }

  static Map<String, Object> at(int row, int col) {
    Map<String, Object> shot = new LinkedHashMap<>();
    shot.put("row", (double) row);
    shot.put("col", (double) col);
    return shot;
  }

  static List<Object> placeFleet(Map<String, Object> config) {
    int rows = num(config.get("rows")), cols = num(config.get("cols"));
    List<Integer> lengths = new ArrayList<>();
    for (Object s : list(config.get("ships"))) lengths.add(num(s));
    lengths.sort((a, b) -> b - a);
    Set<String> taken = new HashSet<>();
    List<Object> fleet = new ArrayList<>();
    for (int length : lengths) {
      search:
      for (int r = 0; r < rows; r++) {
        for (int c = 0; c < cols; c++) {
          for (String dir : new String[] {"h", "v"}) {
            List<int[]> body = cells(r, c, length, dir);
            boolean ok = true;
            for (int[] p : body) ok &= p[0] < rows && p[1] < cols && !taken.contains(key(p[0], p[1]));
            if (!ok) continue;
            // Keep a cell of water around each ship, so that it fits no_touch too.
            for (int[] p : body) {
              for (int dr = -1; dr <= 1; dr++) for (int dc = -1; dc <= 1; dc++) taken.add(key(p[0] + dr, p[1] + dc));
            }
            Map<String, Object> ship = new LinkedHashMap<>();
            ship.put("length", (double) length);
            ship.putAll(at(r, c));
            ship.put("dir", dir);
            fleet.add(ship);
            break search;
          }
        }
      }
    }
    return fleet;
  }

  static Object shots(Map<String, Object> view) {
    Map<String, Object> config = obj(view.get("config"));
    int rows = num(config.get("rows")), cols = num(config.get("cols"));
    boolean salvo = Boolean.TRUE.equals(config.get("salvo"));
    Set<String> tried = new HashSet<>();
    List<int[]> order = new ArrayList<>();
    for (Object o : list(view.get("outgoing"))) {
      Map<String, Object> s = obj(o);
      int r = num(s.get("row")), c = num(s.get("col"));
      tried.add(key(r, c));
      if ("hit".equals(s.get("result"))) {
        order.add(new int[] {r - 1, c});
        order.add(new int[] {r + 1, c});
        order.add(new int[] {r, c - 1});
        order.add(new int[] {r, c + 1});
      }
    }
    for (int parity = 0; parity < 2; parity++) {
      for (int r = 0; r < rows; r++) {
        for (int c = 0; c < cols; c++) if (parity == 1 || (r + c) % 2 == 0) order.add(new int[] {r, c});
      }
    }
    int want = 1;
    if (salvo) {
      Set<String> hit = new HashSet<>();
      for (Object o : list(view.get("incoming"))) {
        Map<String, Object> s = obj(o);
        if (!"miss".equals(s.get("result"))) hit.add(key(num(s.get("row")), num(s.get("col"))));
      }
      want = 0;
      for (Object o : list(view.get("fleet"))) {
        Map<String, Object> ship = obj(o);
        for (int[] p : cells(num(ship.get("row")), num(ship.get("col")), num(ship.get("length")), (String) ship.get("dir"))) {
          if (!hit.contains(key(p[0], p[1]))) { want++; break; }
        }
      }
    }
    List<Object> chosen = new ArrayList<>();
    for (int[] p : order) {
      if (p[0] < 0 || p[1] < 0 || p[0] >= rows || p[1] >= cols || !tried.add(key(p[0], p[1]))) continue;
      chosen.add(at(p[0], p[1]));
      if (chosen.size() == want) break;
    }
    return salvo ? chosen : chosen.get(0);
  }

  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
    for (String line; (line = in.readLine()) != null; ) {
      if (line.isBlank()) continue;
      List<Object> msg = list(Json.parse(line));
      String method = (String) msg.get(0);
      List<Object> params = list(msg.get(1));
      if (method.equals("ejected")) {  // the referee says why this bot is out; no answer
        Map<String, Object> why = obj(params.get(0));
        System.err.println("ejected: " + why.get("verdict") + " during " + why.get("call") + ": " + why.get("detail"));
        return;
      }
      Object answer = method.equals("setup") ? placeFleet(obj(params.get(0)))
          : method.equals("take-turn") ? shots(obj(params.get(0))) : "void";
      System.out.println(Json.write(answer));
      System.out.flush();
      if (method.equals("win")) return;
    }
  }
}
