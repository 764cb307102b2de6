//! What the `run` and `certify` commands call: `--format` on stdout, `--report-dir` files, and
//! the `--fail-on` verdict, all from one event stream.

use super::aggregate::{Aggregate, FailOn};
use super::event::{Event, Reporter};
use super::json::CertifyReport;
use super::terminal::Terminal;
use super::{annotations, counts, html, junit, markdown};
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// What `--format` prints on stdout: one value type for every command that prints results,
/// each taking the formats it can print (`usicheck COMMAND --help` says what each is for it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// For a reader, coloured as `--color` says (alias: text).
    #[default]
    #[value(alias = "text")]
    Human,
    /// One JSON document, for scripts.
    Json,
    /// JUnit XML, for a CI's test report.
    Junit,
    /// Markdown, for a CI job summary.
    Markdown,
}

/// File names inside `--report-dir`.
pub const REPORT_JSON: &str = "report.json";
pub const JUNIT_XML: &str = "junit.xml";
pub const SUMMARY_MD: &str = "summary.md";
pub const REPORT_HTML: &str = "report.html";
pub const COUNTS_TXT: &str = "counts.txt";
pub const ANNOTATIONS_TXT: &str = "annotations.txt";
pub const TRANSCRIPTS: &str = "transcripts";

/// The reporters of one command invocation. Feed it every event, then call
/// [`Outputs::finish`].
///
/// ```no_run
/// use usicheck::report::{FailOn, Format, Outputs, Reporter};
/// # fn events() -> Vec<usicheck::report::Event> { Vec::new() }
/// let mut outputs = Outputs::new(Format::Human, FailOn::Must, Some("report".into()))?;
/// for event in events() {
///     outputs.event(&event)?;
/// }
/// let exit_code = if outputs.finish()? { 0 } else { 1 };
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct Outputs {
    format: Format,
    fail_on: FailOn,
    report_dir: Option<PathBuf>,
    terminal: Option<Terminal<io::Stdout>>,
    aggregate: Aggregate,
    transcripts_copied: usize,
}

impl Outputs {
    /// Creates the reporters; with a report directory, creates it and its `transcripts/` now, so
    /// an unusable path is an input error before the engine starts.
    pub fn new(
        format: Format,
        fail_on: FailOn,
        report_dir: Option<PathBuf>,
    ) -> io::Result<Outputs> {
        if let Some(dir) = &report_dir {
            fs::create_dir_all(dir.join(TRANSCRIPTS)).map_err(|e| {
                io::Error::new(e.kind(), format!("--report-dir {}: {e}", dir.display()))
            })?;
        }
        Ok(Outputs {
            format,
            fail_on,
            report_dir,
            terminal: (format == Format::Human).then(|| Terminal::stdout(fail_on)),
            aggregate: Aggregate::default(),
            transcripts_copied: 0,
        })
    }

    /// Where transcripts belong when a report directory was given. A runner may write them
    /// there directly; transcripts elsewhere are copied in as their scenarios finish.
    pub fn transcript_dir(&self) -> Option<PathBuf> {
        self.report_dir.as_ref().map(|d| d.join(TRANSCRIPTS))
    }

    /// With a report directory, where the runner should stream the full transcript of each
    /// scenario `ids` names (in order): `transcripts/<id>.log`, see [`transcript_file_names`].
    pub fn transcript_paths<'a>(
        &self,
        ids: impl IntoIterator<Item = &'a str>,
    ) -> Vec<Option<PathBuf>> {
        let names = transcript_file_names(ids);
        match self.transcript_dir() {
            Some(dir) => names.into_iter().map(|n| Some(dir.join(n))).collect(),
            None => names.into_iter().map(|_| None).collect(),
        }
    }

    /// Copies a transcript into the report directory and returns its path relative to it.
    fn adopt_transcript(&mut self, dir: &Path, path: &Path) -> io::Result<PathBuf> {
        let transcripts = dir.join(TRANSCRIPTS);
        if let Ok(relative) = path.strip_prefix(&transcripts) {
            return Ok(Path::new(TRANSCRIPTS).join(relative));
        }
        self.transcripts_copied += 1;
        let name = path
            .file_name()
            .map_or("transcript.log".into(), |n| n.to_string_lossy());
        let relative =
            Path::new(TRANSCRIPTS).join(format!("{:03}-{name}", self.transcripts_copied));
        fs::copy(path, dir.join(&relative)).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("copying transcript {}: {e}", path.display()),
            )
        })?;
        Ok(relative)
    }

    /// Writes the report files and prints the chosen format; `true` when the run passes the
    /// `--fail-on` gate (exit code 0), `false` when the engine failed it (exit code 1).
    pub fn finish(self) -> io::Result<bool> {
        self.finish_to(&mut io::stdout().lock())
    }

    /// [`Outputs::finish`], printing the chosen format on `stdout`.
    pub fn finish_to(self, stdout: &mut impl Write) -> io::Result<bool> {
        let render = |format: Format| match format {
            Format::Human => String::new(),
            Format::Json => CertifyReport::new(&self.aggregate, self.fail_on).to_json(),
            Format::Junit => {
                junit::render(&self.aggregate, self.fail_on, self.report_dir.as_deref())
            }
            Format::Markdown => markdown::render(&self.aggregate, self.fail_on),
        };
        if let Some(dir) = &self.report_dir {
            let report = CertifyReport::new(&self.aggregate, self.fail_on);
            let files = [
                (REPORT_HTML, html::render(&report)),
                (REPORT_JSON, report.to_json()),
                (JUNIT_XML, render(Format::Junit)),
                (SUMMARY_MD, render(Format::Markdown)),
                (COUNTS_TXT, counts::render(&self.aggregate)),
                (
                    ANNOTATIONS_TXT,
                    annotations::certify_annotations(&self.aggregate, self.fail_on),
                ),
            ];
            for (name, text) in files {
                let path = dir.join(name);
                fs::write(&path, text).map_err(|e| {
                    io::Error::new(e.kind(), format!("writing {}: {e}", path.display()))
                })?;
            }
        }
        if self.format != Format::Human {
            stdout.write_all(render(self.format).as_bytes())?;
            stdout.flush()?;
        }
        Ok(!self.aggregate.fails(self.fail_on))
    }
}

impl Reporter for Outputs {
    /// Records the event. With a report directory, a finished scenario's transcript is copied
    /// in first when the runner wrote it elsewhere, so report files name it relative to the
    /// directory and the terminal names the file.
    fn event(&mut self, event: &Event) -> io::Result<()> {
        let (Event::ScenarioFinished(report), Some(dir)) = (event, self.report_dir.clone()) else {
            self.aggregate.record(event);
            return self.terminal.as_mut().map_or(Ok(()), |t| t.event(event));
        };
        let relative = match report.transcript_path.as_deref().filter(|p| p.exists()) {
            Some(path) => Some(self.adopt_transcript(&dir, path)?),
            None => None,
        };
        let mut shown = report.clone();
        shown.transcript_path = relative.as_ref().map(|r| dir.join(r));
        let mut recorded = report.clone();
        recorded.transcript_path = relative;
        self.aggregate.record(&Event::ScenarioFinished(recorded));
        match &mut self.terminal {
            Some(terminal) => terminal.event(&Event::ScenarioFinished(shown)),
            None => Ok(()),
        }
    }
}

/// Transcript file names for scenarios `ids` (bundled names or file paths), in order: each id
/// as a portable file name (ASCII letters, digits, `-`, `_`, `.`; `/` and the rest as `-`;
/// `.yaml` dropped) with `.log`, made unique ignoring case by a `-2`, `-3`… suffix.
///
/// ```
/// use usicheck::report::transcript_file_names;
/// let ids = ["03-ready/isready-twice", "../x/My Test.yaml", "03-ready-isready-twice", "/"];
/// assert_eq!(
///     transcript_file_names(ids),
///     ["03-ready-isready-twice.log", "x-My-Test.log", "03-ready-isready-twice-2.log", "scenario.log"]
/// );
/// ```
pub fn transcript_file_names<'a>(ids: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    /// Long enough for any bundled name, short enough for every file system.
    const MAX_STEM: usize = 100;
    let mut taken = std::collections::HashSet::new();
    ids.into_iter()
        .map(|id| {
            let id = id
                .strip_suffix(".yaml")
                .or_else(|| id.strip_suffix(".yml"))
                .unwrap_or(id);
            let mut stem = String::with_capacity(id.len());
            for c in id.chars() {
                let c = if c.is_ascii_alphanumeric() || "_.".contains(c) {
                    c
                } else {
                    '-'
                };
                if !(c == '-' && stem.ends_with('-')) {
                    stem.push(c);
                }
            }
            stem.truncate(MAX_STEM);
            let stem = stem.trim_matches(['-', '.']);
            let stem = if stem.is_empty() { "scenario" } else { stem };
            let mut name = format!("{stem}.log");
            let mut n = 1;
            while !taken.insert(name.to_ascii_lowercase()) {
                n += 1;
                name = format!("{stem}-{n}.log");
            }
            name
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixtures::failing_run;

    #[test]
    fn report_dir_gets_six_outputs_and_stdout_the_chosen_one() {
        let dir = std::env::temp_dir().join(format!("usicheck-outputs-{}", std::process::id()));
        let source = std::env::temp_dir().join(format!("usicheck-tx-{}.log", std::process::id()));
        fs::write(&source, "0.001 > isready\n").unwrap();
        let mut outputs = Outputs::new(Format::Markdown, FailOn::Must, Some(dir.clone())).unwrap();
        for mut event in failing_run() {
            if let Event::ScenarioFinished(report) = &mut event
                && report.name == "isready-twice"
            {
                report.transcript_path = Some(source.clone());
            }
            outputs.event(&event).unwrap();
        }
        let mut stdout = Vec::new();
        assert!(
            !outputs.finish_to(&mut stdout).unwrap(),
            "the fixture fails --fail-on must"
        );
        let stdout = String::from_utf8(stdout).unwrap();
        assert_eq!(stdout, fs::read_to_string(dir.join(SUMMARY_MD)).unwrap());
        let json: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(dir.join(REPORT_JSON)).unwrap()).unwrap();
        let transcript = json["runs"][0]["scenarios"][1]["transcript"]
            .as_str()
            .unwrap();
        assert_eq!(
            transcript,
            "transcripts/001-".to_owned() + &source.file_name().unwrap().to_string_lossy()
        );
        assert_eq!(
            fs::read_to_string(dir.join(transcript)).unwrap(),
            "0.001 > isready\n"
        );
        assert!(
            fs::read_to_string(dir.join(JUNIT_XML))
                .unwrap()
                .contains("<testsuites")
        );
        assert!(
            fs::read_to_string(dir.join(COUNTS_TXT))
                .unwrap()
                .contains("\nfail=1\n")
        );
        let html = fs::read_to_string(dir.join(REPORT_HTML)).unwrap();
        assert!(html.contains("<script type=\"application/json\" id=\"report-data\">"));
        fs::remove_dir_all(&dir).unwrap();
        fs::remove_file(&source).unwrap();
    }

    #[test]
    fn unusable_report_dir_is_an_error_naming_it() {
        let file = std::env::temp_dir().join(format!("usicheck-not-a-dir-{}", std::process::id()));
        fs::write(&file, "").unwrap();
        let err = Outputs::new(Format::Human, FailOn::Must, Some(file.clone()))
            .err()
            .unwrap();
        assert!(err.to_string().starts_with("--report-dir "), "{err}");
        fs::remove_file(&file).unwrap();
    }
}
