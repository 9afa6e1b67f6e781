//! Just enough JSON for a bot (std has no JSON): parse a message, read its fields, write an answer.
#![allow(dead_code)] // each bot uses its own part of it

#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

static NULL: Json = Json::Null;

impl Json {
    pub fn parse(text: &str) -> Json {
        let mut at = 0;
        value(text.as_bytes(), &mut at)
    }
    pub fn get(&self, key: &str) -> &Json {
        match self {
            Json::Obj(fields) => fields.iter().find(|(k, _)| k == key).map(|(_, v)| v).unwrap_or(&NULL),
            _ => &NULL,
        }
    }
    pub fn at(&self, i: usize) -> &Json {
        match self {
            Json::Arr(items) => items.get(i).unwrap_or(&NULL),
            _ => &NULL,
        }
    }
    pub fn items(&self) -> &[Json] {
        match self {
            Json::Arr(items) => items,
            _ => &[],
        }
    }
    pub fn int(&self) -> i64 {
        match self {
            Json::Num(n) => *n as i64,
            _ => 0,
        }
    }
    pub fn str(&self) -> &str {
        match self {
            Json::Str(s) => s,
            _ => "",
        }
    }
    pub fn truthy(&self) -> bool {
        matches!(self, Json::Bool(true))
    }
    pub fn write(&self) -> String {
        match self {
            Json::Null => "null".to_string(),
            Json::Bool(b) => b.to_string(),
            Json::Num(n) if n.fract() == 0.0 => format!("{}", *n as i64),
            Json::Num(n) => n.to_string(),
            Json::Str(s) => format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\"")),
            Json::Arr(items) => format!("[{}]", items.iter().map(Json::write).collect::<Vec<_>>().join(",")),
            Json::Obj(fields) => format!(
                "{{{}}}",
                fields.iter().map(|(k, v)| format!("\"{}\":{}", k, v.write())).collect::<Vec<_>>().join(",")
            ),
        }
    }
}

/// An object from (key, value) pairs, in order.
pub fn obj(fields: &[(&str, Json)]) -> Json {
    Json::Obj(fields.iter().map(|(k, v)| (k.to_string(), v.clone())).collect())
}

fn skip(t: &[u8], at: &mut usize) {
    while *at < t.len() && t[*at].is_ascii_whitespace() {
        *at += 1;
    }
}

fn string(t: &[u8], at: &mut usize) -> String {
    let mut out = Vec::new();
    *at += 1;
    while *at < t.len() && t[*at] != b'"' {
        if t[*at] == b'\\' {
            *at += 1;
            match t[*at] {
                b'n' => out.push(b'\n'),
                b't' => out.push(b'\t'),
                b'r' => out.push(b'\r'),
                b'b' => out.push(8),
                b'f' => out.push(12),
                b'u' => {
                    let hex = std::str::from_utf8(&t[*at + 1..*at + 5]).unwrap_or("3f");
                    let c = char::from_u32(u32::from_str_radix(hex, 16).unwrap_or(63)).unwrap_or('?');
                    out.extend_from_slice(c.to_string().as_bytes());
                    *at += 4;
                }
                c => out.push(c),
            }
        } else {
            out.push(t[*at]);
        }
        *at += 1;
    }
    *at += 1;
    String::from_utf8_lossy(&out).into_owned()
}

fn value(t: &[u8], at: &mut usize) -> Json {
    skip(t, at);
    if *at >= t.len() {
        return Json::Null;
    }
    match t[*at] {
        b'{' | b'[' => {
            let close = if t[*at] == b'{' { b'}' } else { b']' };
            let mut fields = Vec::new();
            let mut items = Vec::new();
            *at += 1;
            skip(t, at);
            while *at < t.len() && t[*at] != close {
                if close == b'}' {
                    let key = string(t, at);
                    skip(t, at);
                    *at += 1; // ':'
                    fields.push((key, value(t, at)));
                } else {
                    items.push(value(t, at));
                }
                skip(t, at);
                if *at < t.len() && t[*at] == b',' {
                    *at += 1;
                }
                skip(t, at);
            }
            *at += 1;
            if close == b'}' { Json::Obj(fields) } else { Json::Arr(items) }
        }
        b'"' => Json::Str(string(t, at)),
        b't' => {
            *at += 4;
            Json::Bool(true)
        }
        b'f' => {
            *at += 5;
            Json::Bool(false)
        }
        b'n' => {
            *at += 4;
            Json::Null
        }
        _ => {
            let start = *at;
            while *at < t.len() && b"+-0123456789.eE".contains(&t[*at]) {
                *at += 1;
            }
            Json::Num(std::str::from_utf8(&t[start..*at]).ok().and_then(|s| s.parse().ok()).unwrap_or(0.0))
        }
    }
}
