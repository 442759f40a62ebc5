//! Rendering side by side. The backends, and a backend's interfaces, share nothing but the
//! IR they read, so each renders on a thread of its own; results come back in the order
//! of the inputs, so the output never depends on which thread finished first.

use std::thread;

/// `f` applied to each item on a thread of its own, the results in the items' order. A
/// panic in `f` is the generator's own bug: it goes on as a panic of the caller.
pub fn map_in_order<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let f = &f;
    thread::scope(|scope| {
        let handles: Vec<_> = items
            .iter()
            .map(|item| scope.spawn(move || f(item)))
            .collect();
        handles
            .into_iter()
            .map(|handle| {
                handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_back_in_the_order_of_the_items() {
        // The first item is the slowest, so finishing order and item order differ.
        let items = [30u64, 0, 10, 0];
        let out = map_in_order(&items, |ms| {
            thread::sleep(std::time::Duration::from_millis(*ms));
            ms * 2
        });
        assert_eq!(out, [60, 0, 20, 0]);
    }

    #[test]
    #[should_panic(expected = "generator bug")]
    fn a_panic_on_a_thread_is_the_callers() {
        map_in_order(&[1], |_| -> () { panic!("generator bug") });
    }
}
