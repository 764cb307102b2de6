//! What to run, and starting it in a process group of its own.

use super::simulated::SimulatedEngine;
use std::ffi::{OsStr, OsString};
use std::io;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// An engine invocation: argv (no shell), working directory and environment.
///
/// ```
/// use usicheck::engine::EngineCommand;
/// let command = EngineCommand::new("./engine").arg("--threads").arg("1").env("LANG", "C");
/// assert_eq!(command.to_string(), "./engine --threads 1");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineCommand {
    program: PathBuf,
    args: Vec<OsString>,
    current_dir: Option<PathBuf>,
    clear_env: bool,
    env: Vec<(OsString, Option<OsString>)>,
    /// The same engine run in a simulated world instead (see [`crate::sim`]).
    simulation: Option<SimulatedEngine>,
}

impl EngineCommand {
    pub fn new(program: impl Into<PathBuf>) -> Self {
        EngineCommand {
            program: program.into(),
            args: Vec::new(),
            current_dir: None,
            clear_env: false,
            env: Vec::new(),
            simulation: None,
        }
    }

    pub fn arg(mut self, arg: impl Into<OsString>) -> Self {
        self.args.push(arg.into());
        self
    }

    pub fn args<I: IntoIterator<Item = S>, S: Into<OsString>>(mut self, args: I) -> Self {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    pub fn current_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.current_dir = Some(dir.into());
        self
    }

    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.env.push((key.into(), Some(value.into())));
        self
    }

    pub fn env_remove(mut self, key: impl Into<OsString>) -> Self {
        self.env.push((key.into(), None));
        self
    }

    /// Starts from an empty environment instead of usicheck's own.
    pub fn env_clear(mut self) -> Self {
        self.clear_env = true;
        self.env.clear();
        self
    }

    /// Runs `engine` in simulated time instead of the process; the command still names the
    /// process, which replays what the simulation showed.
    pub fn simulated(mut self, engine: SimulatedEngine) -> Self {
        self.simulation = Some(engine);
        self
    }

    pub fn simulation(&self) -> Option<&SimulatedEngine> {
        self.simulation.as_ref()
    }

    pub fn program(&self) -> &Path {
        &self.program
    }

    pub fn get_args(&self) -> impl Iterator<Item = &OsStr> {
        self.args.iter().map(OsString::as_os_str)
    }

    /// Spawns with all three pipes, as leader of a new process group.
    pub(crate) fn spawn(&self) -> Result<Child, StartError> {
        if let Some(dir) = &self.current_dir
            && !dir.is_dir()
        {
            return Err(StartError::BadWorkingDirectory { dir: dir.clone() });
        }
        let mut command = Command::new(&self.program);
        command
            .args(&self.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        if let Some(dir) = &self.current_dir {
            command.current_dir(dir);
        }
        if self.clear_env {
            command.env_clear();
        }
        for (key, value) in &self.env {
            match value {
                Some(value) => command.env(key, value),
                None => command.env_remove(key),
            };
        }
        command.spawn().map_err(|error| self.start_error(error))
    }

    fn start_error(&self, source: io::Error) -> StartError {
        let program = self.program.clone();
        // A bare name is searched on PATH, which never runs a directory.
        let is_path = program.components().count() > 1;
        let resolved = match &self.current_dir {
            Some(dir) if program.is_relative() => dir.join(&program),
            _ => program.clone(),
        };
        if is_path && resolved.is_dir() {
            return StartError::IsDirectory { program };
        }
        match source.kind() {
            // Like a shell, a bare name is only looked up on PATH, never in the current
            // directory: say so when the file is right there.
            io::ErrorKind::NotFound if !is_path => StartError::NotOnPath {
                in_current_dir: resolved.is_file(),
                program,
            },
            io::ErrorKind::NotFound => StartError::NotFound { program },
            io::ErrorKind::PermissionDenied => StartError::NotExecutable { program },
            _ => StartError::Io { program, source },
        }
    }
}

impl std::fmt::Display for EngineCommand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.program.display())?;
        for arg in &self.args {
            write!(f, " {}", arg.to_string_lossy())?;
        }
        Ok(())
    }
}

/// How to name a file of the current directory that a bare name did not find on PATH.
fn current_dir_hint(program: &Path, in_current_dir: bool) -> String {
    if in_current_dir {
        format!(
            "; for the file in the current directory, write ./{}",
            program.display()
        )
    } else {
        String::new()
    }
}

/// The engine could not be started at all.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("cannot start engine {}: no such file", program.display())]
    NotFound { program: PathBuf },
    #[error(
        "cannot start engine {}: not found on PATH{}",
        program.display(),
        current_dir_hint(program, *in_current_dir)
    )]
    NotOnPath {
        program: PathBuf,
        /// The file exists in the current (or engine's working) directory.
        in_current_dir: bool,
    },
    #[error("cannot start engine {}: not executable (permission denied)", program.display())]
    NotExecutable { program: PathBuf },
    #[error("cannot start engine {}: it is a directory", program.display())]
    IsDirectory { program: PathBuf },
    #[error("cannot start engine: working directory {} does not exist", dir.display())]
    BadWorkingDirectory { dir: PathBuf },
    #[error("cannot create transcript file {}: {source}", path.display())]
    TranscriptFile {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("not started: usicheck was interrupted")]
    Interrupted,
    #[error("cannot start engine {}: {source}", program.display())]
    Io {
        program: PathBuf,
        #[source]
        source: io::Error,
    },
}
