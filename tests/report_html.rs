//! report.html in a real browser (issue 18): the reports of a whole `certify` (the reference
//! engine with a fault, and Debian's fairy-stockfish) are rendered by headless Chromium, which
//! dumps the DOM and takes a screenshot. The DOM must hold the certificate, the rule matrix,
//! one time-use bar per timed search of report.json and a timeline with the failing line
//! marked; the page must embed report.json itself; and the markup hostile engines print must
//! come out as text, never as a tag, script or attribute.
//!
//! Chromium is /usr/bin/chromium (`CHROMIUM` overrides it); .ci/run installs it. The
//! screenshots, file sizes and render times are written to target/report-html/ and printed
//! (`--nocapture`), never asserted.

mod common;

use common::fake_engine_path;
use serde_json::Value;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

fn chromium() -> PathBuf {
    let path = std::env::var_os("CHROMIUM").map_or("/usr/bin/chromium".into(), PathBuf::from);
    assert!(
        path.is_file(),
        "{} is missing: report.html is checked in headless Chromium; install it with \
         `apt-get install -y chromium` (.ci/run does) or set CHROMIUM",
        path.display()
    );
    path
}

/// How long Chromium may take on a page: one that never finishes loading (a script blocking
/// it, say) fails the test instead of hanging it.
const CHROMIUM_LIMIT: Duration = Duration::from_secs(90);

/// Runs headless Chromium on `page` with `args` (a fresh profile, nothing from the network);
/// returns its stdout and how long it took.
fn run_chromium(page: &Path, args: &[&str]) -> (String, Duration) {
    let profile = tempdir("chromium-profile");
    let started = Instant::now();
    let mut child = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromium starts");
    let mut stdout = child.stdout.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        text
    });
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for chromium") {
            break status;
        }
        if started.elapsed() > CHROMIUM_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "chromium did not finish {} within {CHROMIUM_LIMIT:?}: does a script on the \
                 page block it?",
                page.display()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let took = started.elapsed();
    let text = reader.join().expect("stdout read");
    let _ = std::fs::remove_dir_all(&profile);
    assert!(status.success(), "chromium failed: {status}");
    (text, took)
}

/// A new empty directory, unique among this binary's tests (which run at the same time).
fn tempdir(what: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let index = NEXT.fetch_add(1, Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!(
        "usicheck-report-html-{what}-{}-{index}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Where screenshots are kept for people to look at.
fn artefacts() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/report-html");
    std::fs::create_dir_all(&dir).expect("target/report-html");
    dir
}

/// A run of usicheck (`args`, then `--report-dir`, then `-- engine`; exit code 1: the engines
/// here fail something); returns the report directory.
fn report_dir(name: &str, args: &[&str], engine: &[&str]) -> PathBuf {
    let dir = tempdir(name);
    let started = Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_usicheck"))
        .args(args)
        .arg("--report-dir")
        .arg(&dir)
        .arg("--")
        .args(engine)
        .env(
            "PATH",
            format!("{}:/usr/games", std::env::var("PATH").unwrap_or_default()),
        )
        .env("NO_COLOR", "1")
        .output()
        .expect("usicheck starts");
    assert_eq!(
        output.status.code(),
        Some(1),
        "{name}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    eprintln!(
        "{name}: usicheck took {:.1} s",
        started.elapsed().as_secs_f64()
    );
    dir
}

/// The elements of a serialised DOM: every `<` there opens a tag (text has `&lt;`).
fn tags(dom: &str) -> impl Iterator<Item = &str> {
    dom.split('<')
        .skip(1)
        .map(|rest| rest.split('>').next().unwrap_or(""))
}

/// The attributes of a tag's text (`a href="…" hidden class="x"`) as (name, value): values
/// are double-quoted in a serialised DOM.
fn attributes(tag: &str) -> Vec<(&str, &str)> {
    let rest = tag
        .split_once(char::is_whitespace)
        .map_or("", |(_, rest)| rest);
    let pieces: Vec<&str> = rest.split('"').collect();
    let mut found = Vec::new();
    // Even pieces are outside quotes: bare names, and a last `name=` whose value follows.
    for (i, outside) in pieces.iter().enumerate().step_by(2) {
        for word in outside.split_whitespace() {
            match word.strip_suffix('=') {
                Some(name) => found.push((name, pieces.get(i + 1).copied().unwrap_or(""))),
                None => found.push((word.trim_end_matches('/'), "")),
            }
        }
    }
    found.retain(|(name, _)| !name.is_empty());
    found
}

fn count(dom: &str, needle: &str) -> usize {
    dom.matches(needle).count()
}

/// The JSON the page embeds, parsed.
fn embedded_report(html: &str) -> Value {
    let start = r#"<script type="application/json" id="report-data">"#;
    let from = html.find(start).expect("the page embeds its data") + start.len();
    let to = from + html[from..].find("</script>").expect("closed");
    serde_json::from_str(&html[from..to]).expect("embedded JSON")
}

/// Renders the report of `dir` in Chromium and checks what the page shows against report.json.
fn check_page(name: &str, dir: &Path, failing_rule: &str) {
    let page = dir.join("report.html");
    let html = std::fs::read_to_string(&page).expect("report.html");
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    assert_eq!(
        embedded_report(&html),
        report,
        "{name}: the page embeds report.json"
    );
    let (dom, render) = run_chromium(&page, &["--dump-dom"]);
    let png = artefacts().join(format!("{name}.png"));
    let (_, shot) = run_chromium(
        &page,
        &[
            &format!("--screenshot={}", png.display()),
            "--window-size=1400,2000",
        ],
    );
    let png_bytes = std::fs::read(&png).expect("screenshot written");
    assert!(
        png_bytes.starts_with(b"\x89PNG") && png_bytes.len() > 10_000,
        "{name}: screenshot"
    );
    eprintln!(
        "{name}: report.html {} KB, report.json {} KB; chromium --dump-dom {:.2} s, \
         --screenshot {:.2} s; {}",
        html.len() / 1024,
        std::fs::metadata(dir.join("report.json")).unwrap().len() / 1024,
        render.as_secs_f64(),
        shot.as_secs_f64(),
        png.display()
    );

    let run = &report["runs"][0];
    // The certificate.
    let engine_name = run["engine_name"].as_str().expect("id name");
    assert!(
        dom.contains(r#"<header id="certificate" class="certificate">"#),
        "{name}"
    );
    assert!(dom.contains(r#"data-gate="FAIL""#), "{name}: the gate");
    assert!(
        dom.contains(&format!("usicheck certificate: {engine_name}")),
        "{name}"
    );
    // The rule matrix: one row per judged rule, the fault's rule failing.
    let rules = run["rules"].as_array().unwrap();
    assert_eq!(
        count(&dom, r#"<tr class="rule "#),
        rules.len(),
        "{name}: rule rows"
    );
    assert!(
        dom.contains(&format!(
            r#"data-verdict="FAIL" data-rule="{failing_rule}""#
        )),
        "{name}: {failing_rule} FAIL in the matrix"
    );
    assert!(
        dom.contains(&format!(r#"id="rule-text-{failing_rule}""#)),
        "{name}: rule text"
    );
    // Time use: one bar per timed search.
    let scenarios = run["scenarios"].as_array().unwrap();
    let searches: usize = scenarios
        .iter()
        .map(|s| s["timed_searches"].as_array().unwrap().len())
        .sum();
    assert!(searches > 0, "{name}: timed searches in report.json");
    assert_eq!(
        count(&dom, "data-timed-search="),
        searches,
        "{name}: one bar per timed search"
    );
    // Timelines: one per scenario that ran; a failing one has its evidence line marked.
    assert_eq!(
        count(&dom, r#"<details id="scenario-"#),
        scenarios.len(),
        "{name}"
    );
    let marked = scenarios.iter().enumerate().any(|(i, s)| {
        s["outcome"] == "FAIL"
            && dom
                .split(&format!(r#"<details id="scenario-{i}" "#))
                .nth(1)
                .and_then(|rest| rest.split("</details>").next())
                .is_some_and(|block| block.contains(r#"data-evidence="true""#))
    });
    assert!(
        marked,
        "{name}: a failing scenario's timeline marks its evidence line"
    );
    // Self-contained: nothing fetched, no script but the data.
    for tag in tags(&dom) {
        let lower = tag.to_ascii_lowercase();
        assert!(
            !lower.contains("src=") && !lower.starts_with("link"),
            "{name}: <{tag}>"
        );
    }
}

#[test]
#[ignore = "slow tier: headless Chromium"]
fn the_reference_engine_with_a_fault_renders_in_chromium() {
    let dir = report_dir(
        "overrun-sudden-death",
        &["certify", "--simulate"],
        &[
            env!("CARGO_BIN_EXE_usicheck"),
            "engine",
            "--fault",
            "overrun-sudden-death",
        ],
    );
    check_page("overrun-sudden-death", &dir, "USI-GO-007");
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(
        html.contains(r#"class="timed-search t-late""#),
        "overruns stand out"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[ignore = "slow tier: headless Chromium"]
fn fairy_stockfish_renders_in_chromium() {
    let engine = "/usr/games/fairy-stockfish";
    assert!(
        Path::new(engine).is_file(),
        "{engine} is missing: `apt-get install fairy-stockfish` (.ci/run does)"
    );
    // The report .ci/run made when it certified the engine, else a certify of its own.
    let ci_report = std::env::var_os("USICHECK_CI_REPORTS")
        .map(|reports| Path::new(&reports).join("fairy-stockfish"))
        .filter(|dir| dir.join("report.html").is_file());
    let dir = match &ci_report {
        Some(dir) => dir.clone(),
        None => report_dir("fairy-stockfish", &["certify"], &[engine]),
    };
    // Fairy-Stockfish reads `go mate` as UCI does: a known failure (tests/expected).
    check_page("fairy-stockfish", &dir, "USI-MATE-002");
    if ci_report.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Markup and escape sequences a hostile engine prints, in every place a report shows.
const HOSTILE: &[&str] = &[
    "usi => say id name \\e[31mRed\\e]0\\x3bpwned\\x07<script>alert(1)</script>\" onmouseover=\"alert(2); \
     say id author <img src=x onerror=alert(3)>'><svg onload=alert(4)>; \
     say option name \\e[5mBl<b>ink type check default true; say usiok",
    "isready => say readyok",
    "go infinite =>",
    "go => say info string \\e[1A\\x9b <img src=x onerror=alert(5)></svg><script>alert(6)</script>; \
     say bestmove 7g7f",
    "stop => say bestmove <a href=javascript:alert(7)>x</a>\" onmouseover=\"alert(8)",
    "quit => signal 11",
];

#[test]
#[ignore = "slow tier: headless Chromium"]
fn hostile_engine_text_comes_out_of_report_html_as_text() {
    let stages = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/hostile/stages.yaml");
    let fake = fake_engine_path().display().to_string();
    let args = [
        "run",
        stages,
        "--usiok-timeout",
        "1000ms",
        "--quit-timeout",
        "500ms",
    ];
    let mut engine = vec![fake.as_str()];
    engine.extend(HOSTILE);
    let dir = report_dir("hostile", &args, &engine);
    let page = dir.join("report.html");
    let html = std::fs::read_to_string(&page).unwrap();
    let report = embedded_report(&html);
    assert!(
        report["runs"][0]["engine_name"]
            .as_str()
            .is_some_and(|n| n.contains("<script>alert(1)</script>")),
        "the embedded data keeps the engine's text raw"
    );
    let (dom, _) = run_chromium(&page, &["--dump-dom"]);
    assert!(
        dom.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "shown as text"
    );
    assert!(
        dom.contains("\\x1b[31mRed"),
        "escape sequences made visible"
    );
    let mut scripts = 0;
    for tag in tags(&dom) {
        let lower = tag.to_ascii_lowercase();
        let element = lower.split_whitespace().next().unwrap_or("");
        scripts += usize::from(element == "script");
        assert!(
            !matches!(element, "img" | "b" | "iframe" | "object" | "embed"),
            "an engine's tag survived: <{tag}>"
        );
        for (name, value) in attributes(&lower) {
            assert!(
                !name.starts_with("on") && !value.trim_start().starts_with("javascript:"),
                "an engine's attribute survived: <{tag}>"
            );
        }
        if element == "script" {
            assert!(tag.contains(r#"type="application/json""#), "<{tag}>");
        }
    }
    assert_eq!(scripts, 1, "one script element: the data");
    assert!(
        !dom.contains('\u{1b}') && !dom.contains('\u{9b}'),
        "no raw control character"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
