//! Progress on stderr: indicatif bars and the progress lines of long commands.
//!
//! Bars are drawn only when stderr is a terminal and `--quiet` was not given
//! ([`bars`]); otherwise a [`Bar`] does nothing. Key generation drives its bar through
//! the library's hook, [`hekate::progress::Progress`], which [`Bar`] implements.
//!
//! The benchmarks' progress lines (what cell runs, how long it took) go through
//! [`line_start`], [`line_add`], [`line_replace`], [`line_end`] and [`note`]:
//!
//! * with bars, the line being built shows on a spinner below the bars, and a finished
//!   line is printed above them;
//! * without bars (stderr not a terminal: a log file, CI), the text goes to stderr as
//!   it comes, as it always did;
//! * with `--quiet`, nothing is printed.

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::fmt::Display;
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

/// `--quiet`: no bars, no progress lines.
static QUIET: AtomicBool = AtomicBool::new(false);

/// Sets `--quiet` (before anything reports progress).
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// Whether `--quiet` was given.
pub fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// Whether bars are drawn: stderr is a terminal and `--quiet` was not given.
pub fn bars() -> bool {
    !quiet() && std::io::stderr().is_terminal()
}

/// The one draw target every bar and the status spinner share (stderr).
fn multi() -> &'static MultiProgress {
    static MULTI: OnceLock<MultiProgress> = OnceLock::new();
    MULTI.get_or_init(|| MultiProgress::with_draw_target(ProgressDrawTarget::stderr()))
}

/// Runs `f` (which prints to stdout or stderr) with the bars hidden, so that its text
/// does not tear them.
pub fn suspend<R>(f: impl FnOnce() -> R) -> R {
    if bars() {
        multi().suspend(f)
    } else {
        f()
    }
}

/// A progress bar on stderr, or nothing where bars are not drawn ([`bars`]). Cleared
/// when dropped.
#[derive(Debug)]
pub struct Bar(Option<ProgressBar>);

impl Bar {
    /// A bar of `total` units labelled `label` (e.g. "cells", "keys"); `total` 0 for a
    /// bar whose length the library's [`start`](hekate::progress::Progress::start) sets.
    pub fn new(total: u64, label: &str) -> Bar {
        if !bars() {
            return Bar(None);
        }
        let style = ProgressStyle::with_template(
            "{prefix:>10} [{bar:30}] {pos}/{len} {elapsed:>4} (eta {eta}) {msg}",
        )
        .map(|s| s.progress_chars("=> "))
        .unwrap_or_else(|_| ProgressStyle::default_bar());
        let pb = if total == 0 {
            ProgressBar::no_length()
        } else {
            ProgressBar::new(total)
        };
        let pb = multi().add(pb);
        pb.set_style(style);
        pb.set_prefix(label.to_string());
        pb.enable_steady_tick(Duration::from_millis(250));
        Bar(Some(pb))
    }

    /// A bar that draws nothing.
    pub fn hidden() -> Bar {
        Bar(None)
    }

    /// `n` more units done.
    pub fn inc(&self, n: u64) {
        if let Some(pb) = &self.0 {
            pb.inc(n);
        }
    }

    /// `done` of `total` units done (for the library's `(done, total)` callbacks).
    pub fn set(&self, done: usize, total: usize) {
        if let Some(pb) = &self.0 {
            pb.set_length(total as u64);
            pb.set_position(done as u64);
        }
    }

    /// The text after the bar.
    pub fn message(&self, msg: impl Display) {
        if let Some(pb) = &self.0 {
            pb.set_message(msg.to_string());
        }
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        if let Some(pb) = self.0.take() {
            pb.finish_and_clear();
            multi().remove(&pb);
        }
    }
}

impl hekate::progress::Progress for Bar {
    fn start(&self, total: u64) {
        if let Some(pb) = &self.0 {
            pb.set_length(total);
            pb.set_position(0);
        }
    }

    fn inc(&self, delta: u64) {
        Bar::inc(self, delta);
    }

    fn finish(&self) {
        if let Some(pb) = &self.0 {
            pb.set_position(pb.length().unwrap_or(0));
        }
    }
}

/// The progress line being built, while bars are drawn.
struct Status {
    /// The line so far.
    text: String,
    /// The spinner showing it, while a line is open.
    spinner: Option<ProgressBar>,
}

/// The progress line (used only while bars are drawn).
static STATUS: Mutex<Status> = Mutex::new(Status {
    text: String::new(),
    spinner: None,
});

/// Shows `status.text` on the spinner (created on first use).
fn show(status: &mut Status) {
    let text = status.text.clone();
    let spinner = status.spinner.get_or_insert_with(|| {
        let pb = multi().add(ProgressBar::new_spinner());
        pb.enable_steady_tick(Duration::from_millis(250));
        pb
    });
    spinner.set_message(text);
}

/// Updates the progress line with `f`, where bars are drawn; else runs `plain`.
fn update(f: impl FnOnce(&mut Status), plain: impl FnOnce()) {
    if quiet() {
        return;
    }
    if !bars() {
        plain();
        let _ = std::io::stderr().flush();
        return;
    }
    let mut status = STATUS.lock().unwrap_or_else(|e| e.into_inner());
    f(&mut status);
}

/// Begins a progress line with `text`.
pub fn line_start(text: impl Display) {
    let text = text.to_string();
    update(
        |s| {
            s.text = text.clone();
            show(s);
        },
        || eprint!("{text}"),
    );
}

/// Appends `text` to the progress line.
pub fn line_add(text: impl Display) {
    let text = text.to_string();
    update(
        |s| {
            s.text.push_str(&text);
            show(s);
        },
        || eprint!("{text}"),
    );
}

/// Replaces the progress line by `text` (a `\r` without bars).
pub fn line_replace(text: impl Display) {
    let text = text.to_string();
    update(
        |s| {
            s.text = text.clone();
            show(s);
        },
        || eprint!("\r{text}"),
    );
}

/// Ends the progress line with `text`: it stays on screen.
pub fn line_end(text: impl Display) {
    let text = text.to_string();
    update(
        |s| {
            let line = std::mem::take(&mut s.text) + &text;
            if let Some(pb) = s.spinner.take() {
                pb.finish_and_clear();
                multi().remove(&pb);
            }
            multi().println(line).ok();
        },
        || eprintln!("{text}"),
    );
}

/// A whole progress line.
pub fn note(text: impl Display) {
    let text = text.to_string();
    update(
        |_| {
            multi().println(&text).ok();
        },
        || eprintln!("{text}"),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Under `cargo test` stderr is captured (not a terminal): bars do nothing, and the
    /// hook's calls are harmless.
    #[test]
    fn bars_are_inert_off_a_terminal() {
        use hekate::progress::Progress;
        if std::io::stderr().is_terminal() {
            return;
        }
        assert!(!bars());
        let bar = Bar::new(3, "keys");
        assert!(bar.0.is_none());
        bar.start(5);
        Progress::inc(&bar, 2);
        bar.set(1, 2);
        bar.message("x");
        bar.finish();
        drop(bar);
        assert!(Bar::hidden().0.is_none());
    }
}
