//! Fault injection, reproducible from a seed: a share of requests answered 500/502/503 or
//! 429, cut off (reset before the body, or truncated half-way), or answered slowly.

use std::sync::Mutex;
use std::time::Duration;

/// Rates are fractions of requests (0.1 = 10 %); they add up, at most 1.
#[derive(Debug, Clone, PartialEq)]
pub struct Faults {
    pub seed: u64,
    pub server_error: f64,
    pub too_many_requests: f64,
    pub reset: f64,
    pub truncate: f64,
    pub slow: f64,
    /// How slow a slow answer is.
    pub slow_for: Duration,
}

impl Default for Faults {
    fn default() -> Self {
        Faults {
            seed: 1,
            server_error: 0.0,
            too_many_requests: 0.0,
            reset: 0.0,
            truncate: 0.0,
            slow: 0.0,
            slow_for: Duration::from_millis(1500),
        }
    }
}

impl Faults {
    /// The same `total` share of requests faulted, spread over every kind.
    pub fn mixed(seed: u64, total: f64) -> Self {
        Faults {
            seed,
            server_error: total * 0.4,
            too_many_requests: total * 0.2,
            reset: total * 0.15,
            truncate: total * 0.15,
            slow: total * 0.1,
            slow_for: Duration::from_millis(300),
        }
    }

    pub fn any(&self) -> bool {
        self.server_error + self.too_many_requests + self.reset + self.truncate + self.slow > 0.0
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    ServerError(u16),
    TooManyRequests,
    Reset,
    Truncate,
    Slow,
}

/// Draws faults from a seeded generator (splitmix64), so a run can be repeated.
#[derive(Debug)]
pub struct FaultPlan {
    faults: Faults,
    state: Mutex<u64>,
}

impl FaultPlan {
    pub fn new(faults: Faults) -> Self {
        let state = Mutex::new(faults.seed);
        FaultPlan { faults, state }
    }

    /// Draws from the start of the seed's sequence again.
    pub fn reset(&self) {
        *crate::lock(&self.state) = self.faults.seed;
    }

    pub fn draw(&self) -> Option<(Fault, Duration)> {
        let faults = &self.faults;
        if !faults.any() {
            return None;
        }
        let r = next(&mut crate::lock(&self.state));
        let u = (r >> 11) as f64 / (1u64 << 53) as f64;
        let mut edge = 0.0;
        let kinds = [
            (
                faults.server_error,
                Fault::ServerError([500, 502, 503][(r % 3) as usize]),
            ),
            (faults.too_many_requests, Fault::TooManyRequests),
            (faults.reset, Fault::Reset),
            (faults.truncate, Fault::Truncate),
            (faults.slow, Fault::Slow),
        ];
        for (rate, fault) in kinds {
            edge += rate;
            if u < edge {
                return Some((fault, faults.slow_for));
            }
        }
        None
    }
}

fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_draws_the_same_faults_at_about_the_rate() {
        let draws = |seed| {
            let plan = FaultPlan::new(Faults::mixed(seed, 0.1));
            (0..10_000)
                .map(|_| plan.draw().map(|f| f.0))
                .collect::<Vec<_>>()
        };
        let a = draws(7);
        assert_eq!(a, draws(7));
        assert_ne!(a, draws(8));
        let faulted = a.iter().filter(|f| f.is_some()).count();
        assert!((800..1200).contains(&faulted), "{faulted}");
    }
}
