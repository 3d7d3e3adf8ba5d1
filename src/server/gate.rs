//! Counting open connections (or live streams), in total and per client
//! network, with room kept for newcomers.
//!
//! A cap per address alone can't keep a server answering: clients with
//! enough addresses fill the total between them, and every later client is
//! turned away. So for connections, when the total is full, a client with
//! fewer connections takes the place of a connection of the client with
//! the most ([`AddressGate::admit_or_evict`]): the oldest of its
//! connections that has not been answered yet (a request head or body that
//! never finished), else its oldest. Clients holding connections open then
//! push each other out, and a newcomer gets in while any client holds more
//! than one. Against many addresses with one connection each, what bounds
//! them is the timeouts on heads and bodies. IPv6 clients are counted per
//! /64, the block one subscriber usually gets, so a single host can't be
//! thousands of "addresses".

use std::collections::{BTreeMap, HashMap};
use std::net::{IpAddr, Ipv6Addr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::Notify;

/// Counts open connections (or live streams), in total and per client
/// network. In-process on purpose: it bounds this instance's own sockets
/// and tasks, not anything shared.
#[derive(Clone)]
pub struct AddressGate {
    state: Arc<Mutex<GateState>>,
    max_total: usize,
    max_per_address: usize,
}

#[derive(Default)]
struct GateState {
    open: usize,
    next_id: u64,
    by_network: HashMap<IpAddr, Network>,
}

#[derive(Default)]
struct Network {
    open: usize,
    /// Its connections that may be evicted, oldest (lowest id) first.
    evictable: BTreeMap<u64, Evictable>,
}

struct Evictable {
    evicted: Arc<Notify>,
    answered: Arc<AtomicBool>,
    /// Counted out of the gate already (it was evicted).
    left: Arc<AtomicBool>,
}

/// Why a gate said no.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Full {
    Total,
    Address,
}

/// One admitted connection or stream; gives its place back when dropped.
pub struct Admission {
    id: u64,
    network: IpAddr,
    state: Arc<Mutex<GateState>>,
    evicted: Arc<Notify>,
    answered: Arc<AtomicBool>,
    left: Arc<AtomicBool>,
}

impl Admission {
    /// Resolves when the gate has given this connection's place to a
    /// newcomer: the connection should then be closed.
    pub async fn evicted(&self) {
        self.evicted.notified().await;
    }

    /// Set once the connection has answered a request: such a connection
    /// is evicted only after those that have answered nothing.
    pub fn answered(&self) -> Arc<AtomicBool> {
        self.answered.clone()
    }
}

impl Drop for Admission {
    fn drop(&mut self) {
        if self.left.load(Ordering::Relaxed) {
            // Evicted: its place was given to the newcomer then.
            return;
        }
        let mut state = lock(&self.state);
        state.open -= 1;
        if let Some(network) = state.by_network.get_mut(&self.network) {
            network.open -= 1;
            network.evictable.remove(&self.id);
            if network.open == 0 {
                state.by_network.remove(&self.network);
            }
        }
    }
}

fn lock(state: &Mutex<GateState>) -> std::sync::MutexGuard<'_, GateState> {
    state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The network an address is counted under: itself for IPv4 (and IPv4
/// mapped into IPv6), its /64 for IPv6.
pub fn network_of(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(Ipv6Addr::from(
                u128::from(v6) & 0xffff_ffff_ffff_ffff_0000_0000_0000_0000,
            )),
        },
    }
}

impl AddressGate {
    /// `max_per_address` 0 means no per-address cap.
    pub fn new(max_total: usize, max_per_address: usize) -> AddressGate {
        AddressGate {
            state: Arc::default(),
            max_total,
            max_per_address,
        }
    }

    /// A place if there is one: over either cap, no.
    pub fn admit(&self, ip: IpAddr) -> Result<Admission, Full> {
        self.enter(ip, false)
    }

    /// [`admit`](Self::admit), except that when the total is full, a
    /// client with fewer connections than another (by at least two) gets
    /// in, and that other's oldest connection is told to close (see
    /// [`Admission::evicted`]). Until it has, the total is over by one.
    pub fn admit_or_evict(&self, ip: IpAddr) -> Result<Admission, Full> {
        self.enter(ip, true)
    }

    fn enter(&self, ip: IpAddr, may_evict: bool) -> Result<Admission, Full> {
        let network = network_of(ip);
        let mut state = lock(&self.state);
        let mine = state.by_network.get(&network).map_or(0, |n| n.open);
        if self.max_per_address > 0 && mine >= self.max_per_address {
            return Err(Full::Address);
        }
        if state.open >= self.max_total {
            if !may_evict {
                return Err(Full::Total);
            }
            let heaviest = state
                .by_network
                .iter()
                .filter(|(_, n)| !n.evictable.is_empty())
                .max_by_key(|(_, n)| n.open)
                .filter(|(_, n)| n.open > mine + 1)
                .map(|(ip, _)| *ip);
            let Some(heaviest) = heaviest else {
                return Err(Full::Total);
            };
            // Its place is given to the newcomer now, so the total never
            // runs over and the next newcomer weighs the clients afresh.
            let network = state.by_network.get_mut(&heaviest).expect("found above");
            let chosen = network
                .evictable
                .iter()
                .find(|(_, e)| !e.answered.load(Ordering::Relaxed))
                .or_else(|| network.evictable.iter().next())
                .map(|(id, _)| *id);
            if let Some(victim) = chosen.and_then(|id| network.evictable.remove(&id)) {
                victim.left.store(true, Ordering::Relaxed);
                victim.evicted.notify_one();
                network.open -= 1;
                if network.open == 0 {
                    state.by_network.remove(&heaviest);
                }
                state.open -= 1;
            }
        }
        let id = state.next_id;
        state.next_id += 1;
        state.open += 1;
        let evicted = Arc::new(Notify::new());
        let answered = Arc::new(AtomicBool::new(false));
        let left = Arc::new(AtomicBool::new(false));
        let entry = state.by_network.entry(network).or_default();
        entry.open += 1;
        if may_evict {
            entry.evictable.insert(
                id,
                Evictable {
                    evicted: evicted.clone(),
                    answered: answered.clone(),
                    left: left.clone(),
                },
            );
        }
        Ok(Admission {
            id,
            network,
            state: self.state.clone(),
            evicted,
            answered,
            left,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn the_gate_counts_per_address_and_in_total_and_gives_places_back() {
        let gate = AddressGate::new(3, 2);
        let first = gate.admit(ip("10.0.0.1")).expect("first from a");
        let _second = gate.admit(ip("10.0.0.1")).expect("second from a");
        assert_eq!(
            gate.admit(ip("10.0.0.1")).err(),
            Some(Full::Address),
            "a third from one address"
        );
        let _third = gate.admit(ip("10.0.0.2")).expect("another address");
        assert_eq!(
            gate.admit(ip("10.0.0.2")).err(),
            Some(Full::Total),
            "the total is full"
        );
        drop(first);
        assert!(gate.admit(ip("10.0.0.1")).is_ok(), "a place came back");
    }

    #[test]
    fn zero_per_address_means_only_the_total_counts() {
        let gate = AddressGate::new(2, 0);
        let _one = gate.admit(ip("10.0.0.1")).unwrap();
        let _two = gate.admit(ip("10.0.0.1")).unwrap();
        assert_eq!(gate.admit(ip("10.0.0.1")).err(), Some(Full::Total));
    }

    #[tokio::test]
    async fn a_newcomer_evicts_the_oldest_connection_of_the_heaviest_client() {
        let gate = AddressGate::new(4, 0);
        let attacker: Vec<Admission> = (0..3)
            .map(|_| gate.admit_or_evict(ip("10.0.0.9")).unwrap())
            .collect();
        // The oldest has answered a request: the next oldest goes first.
        attacker[0].answered().store(true, Ordering::Relaxed);
        let _light = gate.admit_or_evict(ip("10.0.0.1")).unwrap();
        // Full. The attacker can't push anyone out by coming again...
        assert_eq!(gate.admit_or_evict(ip("10.0.0.9")).err(), Some(Full::Total));
        // ...but a newcomer takes the place of one of the attacker's: the
        // oldest that has answered nothing.
        let _newcomer = gate.admit_or_evict(ip("10.0.0.2")).unwrap();
        let evicted = |i: usize| {
            let admission = &attacker[i];
            async move {
                tokio::time::timeout(std::time::Duration::from_millis(100), admission.evicted())
                    .await
                    .is_ok()
            }
        };
        assert!(
            evicted(1).await,
            "the oldest unanswered connection is told to close"
        );
        assert!(!evicted(0).await, "an answered one is kept");
        assert!(!evicted(2).await, "only one connection is evicted");
        // The place was given at once: the gate never holds more than 4,
        // and the next newcomer weighs the clients afresh (2 against 0).
        assert_eq!(lock(&gate.state).open, 4);
        let _another = gate.admit_or_evict(ip("10.0.0.3")).unwrap();
        assert_eq!(lock(&gate.state).open, 4);
        // Evicted connections closing later give nothing back twice.
        drop(attacker);
        assert_eq!(lock(&gate.state).open, 3);
    }

    #[test]
    fn clients_of_equal_weight_do_not_evict_each_other() {
        let gate = AddressGate::new(2, 0);
        let _a = gate.admit_or_evict(ip("10.0.0.1")).unwrap();
        let _b = gate.admit_or_evict(ip("10.0.0.2")).unwrap();
        assert_eq!(
            gate.admit_or_evict(ip("10.0.0.3")).err(),
            Some(Full::Total),
            "1 is not more than 0 + 1"
        );
    }

    #[test]
    fn ipv6_counts_per_slash_64_and_mapped_ipv4_as_ipv4() {
        assert_eq!(
            network_of(ip("2001:db8:1:2:aaaa:bbbb:cccc:dddd")),
            ip("2001:db8:1:2::")
        );
        assert_eq!(network_of(ip("::ffff:10.0.0.1")), ip("10.0.0.1"));
        let gate = AddressGate::new(10, 2);
        let _one = gate.admit(ip("2001:db8::1")).unwrap();
        let _two = gate.admit(ip("2001:db8::2")).unwrap();
        assert_eq!(
            gate.admit(ip("2001:db8::3")).err(),
            Some(Full::Address),
            "one /64 is one client"
        );
        assert!(gate.admit(ip("2001:db8:0:1::1")).is_ok(), "another /64");
    }
}
