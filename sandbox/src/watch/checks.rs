//! The checks of answers that have passed: each runs after its answer's last byte has gone
//! to the caller (so that checking adds nothing to the caller's wait), and whoever reads
//! the report or the record first waits for the checks of the answers already delivered.

use std::collections::BTreeSet;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

/// The checks under way, by the order they began in.
#[derive(Default)]
pub struct Checks {
    running: Mutex<Running>,
    ended: Condvar,
}

#[derive(Default)]
struct Running {
    next: u64,
    tickets: BTreeSet<u64>,
}

/// A check under way; it ends when dropped (a check that panics, or is never run, ends
/// too, so no reader waits for it forever).
pub struct Ticket {
    checks: Arc<Checks>,
    id: u64,
}

impl Checks {
    fn running(&self) -> MutexGuard<'_, Running> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A check begins.
    pub fn begin(self: &Arc<Self>) -> Ticket {
        let mut running = self.running();
        let id = running.next;
        running.next += 1;
        running.tickets.insert(id);
        Ticket {
            checks: self.clone(),
            id,
        }
    }

    /// Waits until every check that began before this call has ended; those that begin
    /// meanwhile are not waited for, so a reader is never held by traffic that keeps coming.
    pub fn settle(&self) {
        let upto = self.running().next;
        self.wait_before(upto);
    }

    /// Waits until no check that began before the `upto`th is under way.
    fn wait_before(&self, upto: u64) {
        let mut running = self.running();
        while running.tickets.first().is_some_and(|&id| id < upto) {
            running = self
                .ended
                .wait(running)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.checks.running().tickets.remove(&self.id);
        self.checks.ended.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn a_reader_waits_for_the_checks_begun_before_it_and_no_others() {
        let checks = Arc::new(Checks::default());
        checks.settle(); // nothing under way: returns at once
        let (begun, wait_begun) = mpsc::channel();
        let (end, ended) = mpsc::channel::<()>();
        let running = {
            let checks = checks.clone();
            std::thread::spawn(move || {
                let _ticket = checks.begin();
                begun.send(()).unwrap();
                ended.recv().unwrap();
            })
        };
        wait_begun.recv().unwrap();
        // A reader arrives (what `settle` does, in two steps so that the test knows when
        // it has arrived).
        let upto = checks.running().next;
        let (settled, wait_settled) = mpsc::channel();
        let reader = {
            let checks = checks.clone();
            std::thread::spawn(move || {
                checks.wait_before(upto);
                settled.send(()).unwrap();
            })
        };
        // The reader is held while the earlier check runs ...
        assert!(wait_settled.try_recv().is_err());
        // ... not by a check begun after it started waiting ...
        let later = checks.begin();
        end.send(()).unwrap();
        running.join().unwrap();
        // ... and is let go once the earlier one ends (a reader that waited for the later
        // check too would never be: the test fails rather than hangs).
        wait_settled
            .recv_timeout(std::time::Duration::from_secs(30))
            .expect("the reader is let go once the checks begun before it have ended");
        reader.join().unwrap();
        drop(later);
        checks.settle();
    }
}
