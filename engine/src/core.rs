//! What every service works with: the store, the clock, the live event hub
//! and the configuration. The [`Engine`](crate::Engine) holds one and lends
//! it to the service each of its methods calls.

use std::sync::Arc;

use crate::clock::Clock;
use crate::config::Config;
use crate::events::Events;
use crate::store::Store;
use crate::throttle::Throttle;

/// The parts of Airlock's core the services share.
#[derive(Debug)]
pub(crate) struct Core {
    pub(crate) store: Arc<dyn Store>,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) events: Events,
    pub(crate) config: Config,
    /// Failed sign-ins held back per name tried and per client.
    pub(crate) sign_ins: SignInLimits,
}

/// How many failed sign-ins are tolerated before the next waits: few per
/// name (someone guessing one person's password), more per client (a whole
/// office behind one address mistyping).
#[derive(Debug)]
pub(crate) struct SignInLimits {
    pub(crate) names: Throttle,
    pub(crate) clients: Throttle,
}

impl Default for SignInLimits {
    fn default() -> Self {
        let window = chrono::Duration::minutes(15);
        Self {
            names: Throttle::new(5, window),
            clients: Throttle::new(20, window),
        }
    }
}
