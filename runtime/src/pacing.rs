//! Client-side pacing under the service's rate limit, shared by every clone of a client,
//! and by clients with other credentials through [`SharedPacing`].

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

/// At most `requests` sends in any window of `window` (a sliding log, so no window of the
/// service's, fixed or sliding, sees more), plus a pause after a 429's `Retry-After` that
/// holds every request of the client, not only the one that was refused. Requests are
/// let through in the order they asked, so clients sharing a pacer take turns.
#[derive(Debug)]
pub struct Pacer {
    limit: Option<(usize, Duration)>,
    state: Mutex<State>,
    /// The queue of waiting requests: tokio's mutex hands itself over first come, first
    /// served, so one busy client cannot starve another that shares the pacer.
    turns: tokio::sync::Mutex<()>,
}

#[derive(Debug, Default)]
struct State {
    sent: VecDeque<Instant>,
    paused_until: Option<Instant>,
}

impl Pacer {
    /// `None`: no pacing (only `Retry-After` pauses).
    pub fn new(limit: Option<(u32, Duration)>) -> Self {
        Pacer {
            limit: limit.map(|(n, w)| (n.max(1) as usize, w)),
            state: Mutex::new(State::default()),
            turns: tokio::sync::Mutex::new(()),
        }
    }

    /// Waits until a request may be sent, and records it as sent. Returns how long it
    /// waited for the client's own rate limit (a wait after a 429 is the retry's, and not
    /// counted), for the `pause` event.
    pub async fn acquire(&self) -> Duration {
        let _turn = self.turns.lock().await;
        let mut paced = Duration::ZERO;
        loop {
            let Err((wait, window)) = self.try_acquire(Instant::now()) else {
                return paced;
            };
            if window {
                paced += wait;
            }
            tokio::time::sleep(wait).await;
        }
    }

    /// `Ok` when the request may go now (and is recorded); otherwise how long to wait, and
    /// whether for the window (`false`: for a 429's pause).
    fn try_acquire(&self, now: Instant) -> Result<(), (Duration, bool)> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(until) = state.paused_until {
            if until > now {
                return Err((until - now, false));
            }
            state.paused_until = None;
        }
        let Some((requests, window)) = self.limit else {
            return Ok(());
        };
        while state
            .sent
            .front()
            .is_some_and(|t| now.duration_since(*t) >= window)
        {
            state.sent.pop_front();
        }
        if state.sent.len() < requests {
            state.sent.push_back(now);
            return Ok(());
        }
        let oldest = state.sent.front().copied().unwrap_or(now);
        // A window too long for the clock to hold ends never.
        let free_at = oldest.checked_add(window);
        let wait = free_at
            .map_or(window, |t| t.saturating_duration_since(now))
            .max(Duration::from_millis(1));
        Err((wait, true))
    }

    /// [`Pacer::acquire`] for a client with requests of its own waiting in `turn`: only
    /// one of them waits in the pacer's queue at a time, so clients sharing the pacer take
    /// turns request by request however many requests each has under way.
    pub async fn acquire_in_turn(&self, turn: &ClientTurn) -> Duration {
        let _mine = turn.0.lock().await;
        self.acquire().await
    }

    /// Holds every request until `delay` from now (after a 429 with `Retry-After`).
    pub fn pause_for(&self, delay: Duration) {
        let now = Instant::now();
        // A delay too long for the clock saturates at about 30 years.
        let until = now
            .checked_add(delay)
            .or_else(|| now.checked_add(Duration::from_secs(30 * 365 * 86_400)))
            .unwrap_or(now);
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if state.paused_until.is_none_or(|t| t < until) {
            state.paused_until = Some(until);
        }
    }
}

/// A client's place in the queue of a shared pacer ([`Pacer::acquire_in_turn`]).
#[derive(Debug, Default)]
pub struct ClientTurn(tokio::sync::Mutex<()>);

/// Pacers shared by every client built with it ([`crate::Config::share_pacing`]): clients
/// with the same base URL (one host and interface; its scheme and host in any case, with
/// or without the default port) take one pacer, whatever their credentials. The
/// service's quota is per client address, so several companies' clients in one process
/// share it: they take turns request by request, and a 429 one of them meets holds them
/// all back. The first client made for a base URL sets its pace.
#[derive(Clone, Debug, Default)]
pub struct SharedPacing {
    pacers: Arc<Mutex<HashMap<String, Arc<Pacer>>>>,
}

impl SharedPacing {
    /// No pacer yet; each base URL gets one when its first client is built.
    pub fn new() -> Self {
        SharedPacing::default()
    }

    /// The pacer of `base` (made with `limit` when it is the first), keyed by the URL as
    /// the service reads it: scheme and host in lower case, no default port, no trailing
    /// slash (one host written two ways is one quota).
    pub(crate) fn pacer(&self, base: &str, limit: Option<(u32, Duration)>) -> Arc<Pacer> {
        let normal = url::Url::parse(base).map_or_else(|_| base.to_string(), String::from);
        let key = normal.trim_end_matches('/').to_string();
        let mut pacers = self.pacers.lock().unwrap_or_else(|p| p.into_inner());
        pacers
            .entry(key)
            .or_insert_with(|| Arc::new(Pacer::new(limit)))
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_holds_at_most_n() {
        let pacer = Pacer::new(Some((2, Duration::from_secs(10))));
        let t0 = Instant::now();
        assert_eq!(pacer.try_acquire(t0), Ok(()));
        assert_eq!(pacer.try_acquire(t0 + Duration::from_secs(1)), Ok(()));
        assert_eq!(
            pacer.try_acquire(t0 + Duration::from_secs(2)),
            Err((Duration::from_secs(8), true))
        );
        assert_eq!(pacer.try_acquire(t0 + Duration::from_secs(10)), Ok(()));
    }

    #[test]
    fn a_pause_after_a_429_is_not_the_window() {
        let pacer = Pacer::new(None);
        pacer.pause_for(Duration::from_secs(5));
        let wait = pacer.try_acquire(Instant::now()).unwrap_err();
        assert!(!wait.1 && wait.0 > Duration::from_secs(4), "{wait:?}");
    }

    #[test]
    fn shared_pacing_gives_one_pacer_per_base_url() {
        let shared = SharedPacing::new();
        let limit = Some((100, Duration::from_secs(10)));
        let v3 = shared.pacer("https://service.example/v3", limit);
        let again = shared.pacer("https://service.example/v3/", None);
        let legacy = shared.pacer("https://service.example", None);
        let written_otherwise = shared.pacer("HTTPS://Service.Example:443/v3", None);
        assert!(Arc::ptr_eq(&v3, &again));
        assert!(Arc::ptr_eq(&v3, &written_otherwise));
        // A path is the service's to read: another case there is another base URL.
        assert!(!Arc::ptr_eq(
            &v3,
            &shared.pacer("https://service.example/V3", None)
        ));
        assert!(!Arc::ptr_eq(&v3, &legacy));
        assert_eq!(again.limit, Some((100, Duration::from_secs(10))));
    }

    /// The order in which a full pacer (1 request per 30 ms) lets `waiters` through, each
    /// asking after the one before it in its client's turn.
    fn granted_order(waiters: Vec<(&'static str, Arc<ClientTurn>)>) -> Vec<&'static str> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        runtime.block_on(async {
            let pacer = Arc::new(Pacer::new(Some((1, Duration::from_millis(30)))));
            pacer.acquire().await;
            let order = Arc::new(Mutex::new(Vec::new()));
            let mut tasks = Vec::new();
            for (name, turn) in waiters {
                let (pacer, order) = (pacer.clone(), order.clone());
                tasks.push(tokio::spawn(async move {
                    pacer.acquire_in_turn(&turn).await;
                    order.lock().unwrap().push(name);
                }));
                tokio::task::yield_now().await;
            }
            for task in tasks {
                task.await.unwrap();
            }
            Arc::try_unwrap(order).unwrap().into_inner().unwrap()
        })
    }

    /// A request that asked while the window was full gets the freed slot before one
    /// that asks only as the slot frees (which, unqueued, would find it free at once).
    #[tokio::test(start_paused = true)]
    async fn a_freed_slot_goes_to_the_request_that_waited() {
        let pacer = Arc::new(Pacer::new(Some((1, Duration::from_millis(50)))));
        pacer.acquire().await;
        let order = Arc::new(Mutex::new(Vec::new()));
        // `late`'s timer is set first, for the moment the slot frees; `early` then asks.
        let late = {
            let (pacer, order) = (pacer.clone(), order.clone());
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(50)).await;
                pacer.acquire().await;
                order.lock().unwrap().push("late");
            })
        };
        tokio::task::yield_now().await;
        let early = {
            let (pacer, order) = (pacer.clone(), order.clone());
            tokio::spawn(async move {
                pacer.acquire().await;
                order.lock().unwrap().push("early");
            })
        };
        late.await.unwrap();
        early.await.unwrap();
        assert_eq!(*order.lock().unwrap(), ["early", "late"]);
    }

    #[test]
    fn clients_sharing_a_pacer_take_turns_however_many_requests_each_has() {
        let (busy, quiet) = (
            Arc::new(ClientTurn::default()),
            Arc::new(ClientTurn::default()),
        );
        // Four requests of a busy client, then one of a quiet one.
        let mut waiters = vec![("busy", busy); 4];
        waiters.push(("quiet", quiet));
        assert_eq!(
            granted_order(waiters),
            ["busy", "quiet", "busy", "busy", "busy"]
        );
    }
}
