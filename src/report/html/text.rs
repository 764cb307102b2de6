//! Text for the page: untrusted text escaped for its place, the catalogue's text with its code
//! spans, report.json made safe to embed, and the small formats every section uses.

use crate::engine::sanitise;

/// JSON text safe inside `<script type="application/json">`: no `<` (so no `</script>` and
/// no `<!--`) and no raw control character (JSON leaves DEL and C1 raw), each as a `\uXXXX`
/// escape within its string, where alone JSON can hold them.
pub(super) fn embedded_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' | '\u{7f}'..='\u{9f}' => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// Untrusted text as HTML text: control characters visible, `&`, `<`, `>` as references.
pub(in crate::report) fn esc(text: &str) -> String {
    html_escape::encode_text(&sanitise(text)).into_owned()
}

/// Untrusted text inside a double-quoted attribute.
pub(in crate::report) fn attr(text: &str) -> String {
    html_escape::encode_double_quoted_attribute(&sanitise(text)).into_owned()
}

/// `text` cut to `chars` characters, with `…` when cut.
pub(in crate::report) fn shorten(text: &str, chars: usize) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(chars) {
        Some((end, _)) => format!("{}…", &text[..end]).into(),
        None => text.into(),
    }
}

/// Milliseconds for people: two decimals below 10 ms, whole ones above.
pub(in crate::report) fn ms(value: f64) -> String {
    if value.abs() < 10.0 {
        format!("{value:.2} ms")
    } else {
        format!("{value:.0} ms")
    }
}

/// Catalogue text (trusted, with Markdown code spans) as HTML: escaped, then each
/// `` `span` `` as `<code>`.
pub(super) fn catalogue_text(text: &str) -> String {
    let escaped = esc(text);
    let mut out = String::with_capacity(escaped.len() + 16);
    for (i, part) in escaped.split('`').enumerate() {
        match i % 2 {
            1 => out.push_str(&format!("<code>{part}</code>")),
            _ => out.push_str(part),
        }
    }
    out
}

/// A verdict badge.
pub(in crate::report) fn badge(outcome: &str) -> String {
    let outcome = esc(outcome);
    format!("<span class=\"badge v-{outcome}\">{outcome}</span>")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_json_cannot_close_its_script_and_stays_the_same_data() {
        let json = serde_json::json!({"text": "</script><!--<b>\u{9b}\u{7f}"}).to_string();
        let embedded = embedded_json(&json);
        assert!(!embedded.contains('<') && !embedded.contains('\u{9b}'));
        let back: serde_json::Value = serde_json::from_str(&embedded).unwrap();
        assert_eq!(back["text"], "</script><!--<b>\u{9b}\u{7f}");
    }

    #[test]
    fn engine_text_is_inert_in_text_and_attributes() {
        let hostile = "<script>alert(1)</script>\" onmouseover=\"x\u{1b}[31m";
        assert_eq!(
            esc(hostile),
            "&lt;script&gt;alert(1)&lt;/script&gt;\" onmouseover=\"x\\x1b[31m"
        );
        assert!(!attr(hostile).contains('"') && !attr(hostile).contains('<'));
    }
}
