//! Finding the file (`--config`, else the nearest up to the repository root) and reading it:
//! one-line errors with their place, relative paths resolved against the file's directory.

use super::{Config, DEFAULT_PATH};
use std::path::{Component, Path, PathBuf};

/// The config file and where it is: `explicit` (`--config`), else the one [`discover`] finds
/// from the current directory.
pub(super) fn find(explicit: Option<&Path>) -> Result<Option<(PathBuf, Config)>, String> {
    let path = match explicit {
        Some(path) => path.to_path_buf(),
        None => {
            let here = std::env::current_dir().map_err(|e| format!("current directory: {e}"))?;
            match discover(&here) {
                Some(path) => path,
                None => return Ok(None),
            }
        }
    };
    let config = load(&path)?;
    Ok(Some((path, config)))
}

/// The nearest [`DEFAULT_PATH`] from directory `start` (absolute) up: in `start` itself
/// (named `usicheck.toml`, relative, as today's errors name it) or an ancestor (named by its
/// absolute path), looking no higher than the repository root, the first directory that
/// holds `.git` (a directory, or a worktree's file), or the filesystem root outside one.
fn discover(start: &Path) -> Option<PathBuf> {
    for dir in start.ancestors() {
        let candidate = dir.join(DEFAULT_PATH);
        if candidate.is_file() {
            return Some(match dir == start {
                true => PathBuf::from(DEFAULT_PATH),
                false => candidate,
            });
        }
        if dir.join(".git").exists() {
            return None;
        }
    }
    None
}

/// Reads and checks the file at `path`, its relative paths resolved against its directory;
/// errors are one line, `FILE:LINE:COL: message` when they have a place.
pub fn load(path: &Path) -> Result<Config, String> {
    let place = path.display();
    let text = std::fs::read_to_string(path).map_err(|e| format!("{place}: cannot read: {e}"))?;
    let mut config: Config = toml::from_str(&text).map_err(|e| {
        let message = e.message().trim().replace('\n', "; ");
        match e.span() {
            Some(span) => {
                let (line, column) = line_and_column(&text, span.start);
                format!("{place}:{line}:{column}: {message}")
            }
            None => format!("{place}: {message}"),
        }
    })?;
    let dir = std::path::absolute(path)
        .map_err(|e| format!("{place}: {e}"))?
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    config.resolve_paths(&dir);
    config
        .play
        .check()
        .map_err(|e| format!("{place}: [play] {e}"))?;
    Ok(config)
}

/// 1-based line and column (in characters) of byte `offset` of `text`.
fn line_and_column(text: &str, offset: usize) -> (usize, usize) {
    let mut end = offset.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let before = &text[..end];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (
        before.matches('\n').count() + 1,
        before[line_start..].chars().count() + 1,
    )
}

/// `path` under `dir` when relative, without `.` components.
pub fn under(dir: &Path, path: &Path) -> PathBuf {
    dir.join(path)
        .components()
        .filter(|c| *c != Component::CurDir)
        .collect()
}

impl Config {
    /// Makes the engine command (when it names a path: it has a `/`), `cwd`, `engine-define`,
    /// `baseline` and `report-dir` relative to `dir`.
    fn resolve_paths(&mut self, dir: &Path) {
        let resolve = |path: &mut Option<PathBuf>| {
            if let Some(p) = path {
                *p = under(dir, p);
            }
        };
        if let Some(engine) = &mut self.engine {
            if engine.command.contains('/') {
                engine.command = under(dir, Path::new(&engine.command)).display().to_string();
            }
            resolve(&mut engine.cwd);
            resolve(&mut engine.engine_define);
        }
        resolve(&mut self.certify.baseline);
        resolve(&mut self.certify.report_dir);
        resolve(&mut self.fuzz.baseline);
        resolve(&mut self.fuzz.report_dir);
        let play = &mut self.play;
        if let Some(opponent) = &mut play.opponent
            && opponent.contains('/')
        {
            *opponent = under(dir, Path::new(opponent)).display().to_string();
        }
        if let Some(openings) = &mut play.openings
            && openings != "bundled"
        {
            *openings = under(dir, Path::new(openings)).display().to_string();
        }
        resolve(&mut play.opponent_cwd);
        resolve(&mut play.report_dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use usicheck::report::FailOn;
    use usicheck::rules::Profile;

    fn parse(text: &str) -> Result<Config, String> {
        let path = std::env::temp_dir().join(format!(
            "usicheck-config-{}-{}.toml",
            std::process::id(),
            text.len()
        ));
        std::fs::write(&path, text).unwrap();
        let result =
            load(&path).map_err(|e| e.replacen(&path.display().to_string(), "usicheck.toml", 1));
        std::fs::remove_file(&path).unwrap();
        result
    }

    #[test]
    fn a_full_file_reads_naturally() {
        let config = parse(
            "[engine]\ncommand = \"./engine\"\nargs = [\"--threads\", \"1\"]\ncwd = \".\"\n\
             [engine.options]\nUSI_Hash = 256\nThreads = 1\nPonder = true\nEvalDir = \"eval\"\n\
             [certify]\nprofile = \"usi2\"\njobs = 2\nfail-on = \"should\"\n\
             [timeouts]\nusiok = \"5s\"\n",
        )
        .unwrap();
        let engine = config.engine.unwrap();
        assert!(engine.command.ends_with("/engine"), "{}", engine.command);
        assert!(Path::new(&engine.command).is_absolute());
        assert_eq!(
            engine.options.0,
            ["USI_Hash=256", "Threads=1", "Ponder=true", "EvalDir=eval"]
        );
        assert_eq!(config.certify.profile, Some(Profile::Usi2));
        assert_eq!(config.certify.fail_on, Some(FailOn::Should));
        assert_eq!(config.timeouts.usiok.as_deref(), Some("5s"));
    }

    #[test]
    fn errors_name_the_line_and_column() {
        let cases = [
            (
                "[certify]\nprofil = \"usi2\"\n",
                "usicheck.toml:2:1: unknown field `profil`",
            ),
            (
                "[certify]\nprofile = \"usi3\"\n",
                "usicheck.toml:2:11: \"usi3\" is not one of",
            ),
            ("[certify]\njobs = 0\n", "usicheck.toml:2:8: jobs = 0"),
            (
                "[timeouts]\nquit = \"5 parsecs\"\n",
                "usicheck.toml:2:8: \"5 parsecs\"",
            ),
            (
                "[engine]\ncommand = \"e\"\n[engine.options]\nHash = { a = 1 }\n",
                "usicheck.toml:4:8: invalid type: map, expected an option value",
            ),
            (
                "[engine]\nargs = []\n",
                "usicheck.toml:1:1: missing field `command`",
            ),
            ("[engine\n", "usicheck.toml:1:8:"),
            (
                "[engine]\ncommand = \"e\"\n[engine.options]\n\"a b\" = 1\n",
                "usicheck.toml:4:1: option name \"a b\"",
            ),
        ];
        for (text, expected) in cases {
            let error = parse(text).unwrap_err();
            assert!(error.starts_with(expected), "{text:?}: {error}");
            assert!(!error.contains('\n'), "{error}");
        }
    }

    #[test]
    fn discovery_walks_up_to_the_repository_root() {
        let top = std::env::temp_dir().join(format!("usicheck-discover-{}", std::process::id()));
        let repo = top.join("repo");
        let deep = repo.join("a/b");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::write(top.join(DEFAULT_PATH), "").unwrap();
        // Above the repository: not read.
        std::fs::create_dir(repo.join(".git")).unwrap();
        assert_eq!(discover(&deep), None);
        // The repository root's own file, two directories up; a worktree's `.git` is a file.
        std::fs::write(repo.join(DEFAULT_PATH), "").unwrap();
        assert_eq!(discover(&deep), Some(repo.join(DEFAULT_PATH)));
        std::fs::remove_dir(repo.join(".git")).unwrap();
        std::fs::write(deep.join(".git"), "gitdir: elsewhere\n").unwrap();
        assert_eq!(discover(&deep), None);
        // The current directory's own is named as before.
        std::fs::write(deep.join(DEFAULT_PATH), "").unwrap();
        assert_eq!(discover(&deep), Some(PathBuf::from(DEFAULT_PATH)));
        std::fs::remove_dir_all(&top).unwrap();
    }

    #[test]
    fn columns_count_characters() {
        assert_eq!(line_and_column("a\n\u{3042}b", 5), (2, 2));
        assert_eq!(line_and_column("ab", 0), (1, 1));
    }
}
