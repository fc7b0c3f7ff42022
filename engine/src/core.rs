//! What every service works with: the store, the clock, the live event hub
//! and the configuration. The [`Engine`](crate::Engine) holds one and lends
//! it to the service each of its methods calls.

use std::sync::Arc;

use crate::clock::Clock;
use crate::config::Config;
use crate::events::Events;
use crate::store::Store;

/// The parts of Airlock's core the services share.
#[derive(Debug)]
pub(crate) struct Core {
    pub(crate) store: Arc<dyn Store>,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) events: Events,
    pub(crate) config: Config,
}
