// Just enough JSON for a bot (the JDK has no JSON reader): parse a message into Maps, Lists,
// Strings, Doubles, Booleans and null, and write an answer back.
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

final class Json {
  private final String text;
  private int at;

  private Json(String text) { this.text = text; }

  static Object parse(String text) { return new Json(text).value(); }

  static String write(Object v) {
    if (v == null) return "null";
    if (v instanceof String) return "\"" + ((String) v).replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    if (v instanceof Map) {
      StringBuilder out = new StringBuilder("{");
      for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
        if (out.length() > 1) out.append(',');
        out.append(write(e.getKey())).append(':').append(write(e.getValue()));
      }
      return out.append('}').toString();
    }
    if (v instanceof List) {
      StringBuilder out = new StringBuilder("[");
      for (Object item : (List<?>) v) {
        if (out.length() > 1) out.append(',');
        out.append(write(item));
      }
      return out.append(']').toString();
    }
    if (v instanceof Double && (Double) v == Math.rint((Double) v)) return Long.toString(((Double) v).longValue());
    return v.toString();
  }

  private void skip() {
    while (at < text.length() && Character.isWhitespace(text.charAt(at))) at++;
  }

  private Object value() {
    skip();
    char c = text.charAt(at);
    if (c == '{') {
      Map<String, Object> map = new LinkedHashMap<>();
      at++;
      for (skip(); text.charAt(at) != '}'; skip()) {
        String key = string();
        skip();
        at++;  // ':'
        map.put(key, value());
        skip();
        if (text.charAt(at) == ',') at++;
      }
      at++;
      return map;
    }
    if (c == '[') {
      List<Object> list = new ArrayList<>();
      at++;
      for (skip(); text.charAt(at) != ']'; skip()) {
        list.add(value());
        skip();
        if (text.charAt(at) == ',') at++;
      }
      at++;
      return list;
    }
    if (c == '"') return string();
    if (text.startsWith("true", at)) { at += 4; return true; }
    if (text.startsWith("false", at)) { at += 5; return false; }
    if (text.startsWith("null", at)) { at += 4; return null; }
    int start = at;
    while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) at++;
    return Double.parseDouble(text.substring(start, at));
  }

  private String string() {
    StringBuilder out = new StringBuilder();
    for (at++; text.charAt(at) != '"'; at++) {
      char c = text.charAt(at);
      if (c != '\\') { out.append(c); continue; }
      char e = text.charAt(++at);
      if (e == 'u') {
        out.append((char) Integer.parseInt(text.substring(at + 1, at + 5), 16));
        at += 4;
      } else {
        out.append(e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e == 'b' ? '\b' : e == 'f' ? '\f' : e);
      }
    }
    at++;
    return out.toString();
  }
}
