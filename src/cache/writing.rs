//! The writes of one planned [`Change`], sans IO: the change, then what to
//! write after it ([`Cache::plan_after_write`]: the texts no longer used, or
//! room when the storage was full), each applied to memory only once
//! written. The boundary writes [`Writing::pending`] to the storage and
//! feeds the outcome back until it is [`Next::Done`].
//!
//! ```
//! use content_repo::cache::writing::{Next, Writing};
//! use content_repo::cache::{Cache, Change};
//!
//! let mut cache = Cache::new("tab");
//! // Nothing to write: applied at once, nothing to collect.
//! let mut writing = Writing::new(Change::default(), false);
//! assert_eq!(writing.next(&mut cache, None), Next::Done(Ok(()), Vec::new()));
//! ```

use super::{Cache, Change};
use crate::error::{Error, Result};

/// What to do next.
#[derive(Debug, PartialEq)]
pub enum Next {
    /// Write [`Writing::pending`] to the storage, then call
    /// [`Writing::next`] with the outcome.
    Write,
    /// Over: the outcome of the change (a failed write of what came after
    /// it is the outcome when the change itself was written), and the
    /// errors to report.
    Done(Result<()>, Vec<Error>),
}

/// Where the writing stands.
#[derive(Debug)]
enum Stage {
    /// Writing the change (which may leave texts unused).
    First { may_free: bool },
    /// Writing what came after it; the change's own failure, if it failed.
    After(Option<Error>),
}

/// The writes of one change.
#[derive(Debug)]
pub struct Writing {
    pending: Option<Change>,
    stage: Stage,
    /// Only the change: nothing planned after it, every failure reported
    /// (the deletes of a load).
    alone: bool,
}

impl Writing {
    /// Writing `change`, then what to write after it; with `alone`, only
    /// the change, any failure reported.
    pub fn new(change: Change, alone: bool) -> Self {
        let may_free = change.may_free();
        Writing {
            pending: Some(change),
            stage: Stage::First { may_free },
            alone,
        }
    }

    /// The change to write now (after [`Next::Write`]).
    pub fn pending(&self) -> Option<&Change> {
        self.pending.as_ref()
    }

    /// The next step: `written` is the outcome of writing
    /// [`Writing::pending`] (`None` before the first write). A change with
    /// nothing to write is applied without a write; a written one is
    /// applied, a failed one is not.
    pub fn next(&mut self, cache: &mut Cache, mut written: Option<Result<()>>) -> Next {
        loop {
            let outcome = match written.take() {
                Some(outcome) => outcome,
                None if self.pending.as_ref().is_some_and(|c| !c.is_empty()) => return Next::Write,
                None => Ok(()),
            };
            let change = self.pending.take().unwrap_or_default();
            if outcome.is_ok() {
                cache.apply(change);
            }
            let stage = std::mem::replace(&mut self.stage, Stage::After(None));
            let may_free = match stage {
                Stage::First { .. } if self.alone => {
                    return Next::Done(outcome.clone(), outcome.err().into_iter().collect())
                }
                Stage::First { may_free } => may_free,
                // The storage is full: the change's failure is the outcome,
                // the room's own failure is reported.
                Stage::After(Some(error)) => {
                    let mut report: Vec<Error> = outcome.err().into_iter().collect();
                    if matches!(error, Error::Storage { .. }) {
                        report.push(error.clone());
                    }
                    return Next::Done(Err(error), report);
                }
                Stage::After(None) => return reported(outcome),
            };
            match (
                cache.plan_after_write(outcome.as_ref().copied(), may_free),
                outcome,
            ) {
                (Some(next), outcome) => {
                    self.pending = Some(next);
                    self.stage = Stage::After(outcome.err());
                }
                (None, outcome) => return reported(outcome),
            }
        }
    }
}

/// Done with `outcome`, reporting a storage failure.
fn reported(outcome: Result<()>) -> Next {
    let report = match &outcome {
        Err(error @ Error::Storage { .. }) => vec![error.clone()],
        _ => Vec::new(),
    };
    Next::Done(outcome, report)
}
