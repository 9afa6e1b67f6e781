// A Q bot for arbiter: one JSON message per line on stdin, one answer per line on stdout.
// It places the first tile of its hand that fits next to the map, at the first such spot; with
// no fit it swaps its hand if the referee has tiles enough, else it passes.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

public final class Bot {
  @SuppressWarnings("unchecked")
  static Map<String, Object> obj(Object o) { return (Map<String, Object>) o; }

  @SuppressWarnings("unchecked")
  static List<Object> list(Object o) { return (List<Object>) o; }

  static int num(Object o) { return ((Double) o).intValue(); }

  static boolean same(String key, Map<String, Object> a, Map<String, Object> b) {
    return a.get(key).equals(b.get(key));
  }

  // `tile` between neighbours a and b (null: empty) along one line.
  static boolean fitsLine(Map<String, Object> a, Map<String, Object> tile, Map<String, Object> b) {
    if (a != null && b != null) {
      return (same("shape", a, tile) && same("shape", b, tile)) || (same("color", a, tile) && same("color", b, tile));
    }
    Map<String, Object> other = a != null ? a : b;
    return other == null || same("shape", other, tile) || same("color", other, tile);
  }

  static Object takeTurn(Map<String, Object> pub) {
    Map<Long, Map<String, Object>> board = new HashMap<>();
    for (Object row : list(pub.get("map"))) {
      List<Object> cells = list(row);
      for (Object cell : cells.subList(1, cells.size())) {
        board.put(key(num(cells.get(0)), num(list(cell).get(0))), obj(list(cell).get(1)));
      }
    }
    TreeSet<Long> spots = new TreeSet<>();  // ordered by row, then column
    for (long k : board.keySet()) {
      int r = rowOf(k), c = colOf(k);
      for (int[] d : new int[][] {{-1, 0}, {1, 0}, {0, -1}, {0, 1}}) {
        if (!board.containsKey(key(r + d[0], c + d[1]))) spots.add(key(r + d[0], c + d[1]));
      }
    }
    List<Object> hand = list(obj(list(pub.get("players")).get(0)).get("tile*"));
    for (Object t : hand) {
      Map<String, Object> tile = obj(t);
      for (long k : spots) {
        int r = rowOf(k), c = colOf(k);
        if (fitsLine(board.get(key(r, c - 1)), tile, board.get(key(r, c + 1)))
            && fitsLine(board.get(key(r - 1, c)), tile, board.get(key(r + 1, c)))) {
          return List.of(Map.of("coordinate", Map.of("row", (double) r, "column", (double) c), "1tile", tile));
        }
      }
    }
    return num(pub.get("tile*")) >= hand.size() ? "replace" : "pass";
  }

  // A spot as one number that sorts by row, then column (both within a million of the start).
  static final int OFFSET = 1 << 20;

  static long key(int row, int col) { return ((long) (row + OFFSET) << 21) | (col + OFFSET); }

  static int rowOf(long key) { return (int) (key >> 21) - OFFSET; }

  static int colOf(long key) { return (int) (key & ((1 << 21) - 1)) - OFFSET; }

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
      Object answer = method.equals("take-turn") ? takeTurn(obj(params.get(0))) : "void";
      System.out.println(Json.write(answer));
      System.out.flush();
      if (method.equals("win")) return;
    }
  }
}
