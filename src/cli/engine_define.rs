//! MyShogi `engine_define.xml`: the extended protocol an engine declares decides which USI 2.0
//! extension scenarios run.

use regex::Regex;
use std::io::Read;
use std::path::Path;
use std::sync::LazyLock;
use usicheck::rules::Claims;

/// Larger files are not engine definitions.
const MAX_BYTES: u64 = 1 << 20;

static EXTENDED_PROTOCOL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"<ExtendedProtocol>\s*([^<]*?)\s*</ExtendedProtocol>").expect("static regex")
});

/// The claims in an engine_define.xml; names MyShogi does not define are reported on stderr
/// and ignored.
pub fn read_claims(path: &Path) -> Result<Claims, String> {
    let place = path.display();
    let file = std::fs::File::open(path).map_err(|e| format!("{place}: cannot read: {e}"))?;
    let mut bytes = Vec::new();
    file.take(MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{place}: cannot read: {e}"))?;
    if bytes.len() as u64 > MAX_BYTES {
        return Err(format!("{place}: larger than {MAX_BYTES} bytes"));
    }
    let text = String::from_utf8_lossy(&bytes);
    if !text.contains("<EngineDefine") {
        return Err(format!(
            "{place}:1:1: not a MyShogi engine definition (no <EngineDefine>)"
        ));
    }
    let mut claims = Claims::default();
    for capture in EXTENDED_PROTOCOL.captures_iter(&text) {
        let name = &capture[1];
        if !claims.add_extended_protocol(name) {
            let line = text[..capture.get(0).map_or(0, |m| m.start())]
                .lines()
                .count();
            eprintln!(
                "usicheck: note: {place}:{line}: unknown ExtendedProtocol `{}` ignored",
                name.escape_debug()
            );
        }
    }
    Ok(claims)
}
