//! Starting a session: spawning the engine (or entering its simulated world) and setting
//! up the wire that carries its lines.

use std::os::fd::AsFd;
use std::sync::Arc;
use std::time::Instant;

use super::{Session, SessionOptions, Wire};
use crate::engine::command::{EngineCommand, StartError};
use crate::engine::line::Stream;
use crate::engine::process::{ReapPermit, signal_group, spawn_exit_watcher};
use crate::engine::queue::EventQueue;
use crate::engine::reader::{LineSource, PipeRead, SharedSource, set_nonblocking, spawn_reader};
use crate::engine::simulated::{self, SimulatedEngine};
use crate::engine::transcript::{Direction, Transcript};
use crate::sim::{Clock, World};

impl Session {
    /// Starts the engine; a missing binary, non-executable file or directory is a
    /// [`StartError`]. A command with a [simulated](EngineCommand::simulated) engine runs it
    /// in the world the calling thread's sessions share (see [`crate::sim`]), a new one if
    /// none is running.
    pub fn start(command: &EngineCommand, options: SessionOptions) -> Result<Session, StartError> {
        let transcript = Self::transcript_for(&options)?;
        if let Some(engine) = command.simulation() {
            return Ok(Self::start_simulated(command, engine, options, transcript));
        }
        Self::start_process(command, options, transcript)
    }

    /// Goes on, with the same engine, in a new transcript (at `path`, else in memory) that
    /// opens with `note`: the process serves another scenario. The transcript before is
    /// flushed; entries count from 0 again, the clock goes on.
    pub fn continue_transcript(
        &mut self,
        path: Option<&std::path::Path>,
        note: String,
    ) -> Result<(), StartError> {
        let mut options = self.options.clone();
        options.transcript_path = path.map(std::path::Path::to_path_buf);
        options.transcript_continues = None;
        let transcript = Self::transcript_for(&options)?;
        let _ = self.transcript.flush();
        self.transcript = transcript;
        self.options = options;
        self.transcript
            .record(self.elapsed_micros(), Direction::Note, note);
        Ok(())
    }

    fn transcript_for(options: &SessionOptions) -> Result<Transcript, StartError> {
        let limits = options.transcript_limits;
        let Some(path) = &options.transcript_path else {
            return Ok(Transcript::in_memory(limits));
        };
        let file = match options.transcript_continues {
            Some(_) => Transcript::appended_to(limits, path),
            None => Transcript::to_file(limits, path),
        };
        let mut transcript = file.map_err(|source| StartError::TranscriptFile {
            path: path.clone(),
            source,
        })?;
        // The note parts this session's lines from the earlier ones in the file.
        if let Some(note) = &options.transcript_continues {
            transcript.record(0, Direction::Note, note.clone());
        }
        Ok(transcript)
    }

    fn start_simulated(
        command: &EngineCommand,
        engine: &SimulatedEngine,
        options: SessionOptions,
        mut transcript: Transcript,
    ) -> Session {
        let entered = World::shared_or_new(engine.nodes_per_ms);
        let world = entered.world().clone();
        let time = Clock::Simulated(world.clone());
        transcript.record(0, Direction::Note, format!("started {command} (simulated)"));
        let wire = simulated::Wire::start(engine, world);
        Session {
            pid: 0,
            clock: time.now(),
            time,
            stdin: None,
            wire: Wire::Simulated(wire),
            _world: Some(entered),
            transcript,
            stdout_eof: false,
            stderr_eof: false,
            termination: None,
            exited_at_micros: None,
            end_requested_at_micros: None,
            held_exit: None,
            finished: false,
            options,
        }
    }

    fn start_process(
        command: &EngineCommand,
        options: SessionOptions,
        mut transcript: Transcript,
    ) -> Result<Session, StartError> {
        crate::engine::stall::watch();
        ignore_sigpipe();
        let clock = Instant::now();
        let mut child = command.spawn()?;
        let pid = child.id() as libc::pid_t;
        if !crate::engine::interrupt::register(pid) {
            return Err(StartError::Interrupted);
        }
        transcript.record(0, Direction::Note, format!("started {command} (pid {pid})"));
        let program = command.program().to_path_buf();
        let io_error = |source| StartError::Io {
            program: program.clone(),
            source,
        };
        // Until the session exists, its Drop cannot kill the group: do it by hand.
        let kill_on_error = |error| {
            signal_group(pid, libc::SIGKILL);
            io_error(error)
        };
        let queue = Arc::new(EventQueue::new(options.queue).map_err(kill_on_error)?);
        let max_line = options.max_line_bytes;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            unreachable!("all three pipes were requested");
        };
        let shared = |stream, pipe: Box<dyn PipeRead>| {
            LineSource::new(stream, pipe, clock, max_line)
                .and_then(SharedSource::new)
                .map(Arc::new)
        };
        let stdout = shared(Stream::Stdout, Box::new(stdout)).map_err(kill_on_error)?;
        let stderr = shared(Stream::Stderr, Box::new(stderr)).map_err(kill_on_error)?;
        set_nonblocking(stdin.as_fd()).map_err(kill_on_error)?;
        let reap_permit = Arc::<ReapPermit>::default();
        let session = Session {
            pid,
            clock,
            time: Clock::Real,
            stdin: Some(stdin),
            wire: Wire::Process {
                queue: Arc::clone(&queue),
                stdout: Arc::clone(&stdout),
                reap_permit: Arc::clone(&reap_permit),
            },
            _world: None,
            transcript,
            stdout_eof: false,
            stderr_eof: false,
            termination: None,
            exited_at_micros: None,
            end_requested_at_micros: None,
            held_exit: None,
            finished: false,
            options,
        };
        spawn_reader(stdout, Arc::clone(&queue)).map_err(io_error)?;
        spawn_reader(stderr, Arc::clone(&queue)).map_err(io_error)?;
        spawn_exit_watcher(pid, queue, clock, reap_permit).map_err(io_error)?;
        Ok(session)
    }
}

/// Writing to an engine that died raises SIGPIPE. Rust's `main` ignores it, so the write fails
/// with `BrokenPipe` and the death is judged; a host without that `main` (a libFuzzer target)
/// still has the default action, which would kill the host instead.
fn ignore_sigpipe() {
    static IGNORED: std::sync::Once = std::sync::Once::new();
    IGNORED.call_once(|| {
        // SAFETY: installs the `SIG_IGN` disposition, no handler code runs.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_IGN);
        }
    });
}
