//! Where the log and the traces go. The log goes to a stream, as lines for
//! people or, with `AIRLOCK_LOG_FORMAT=json`, one JSON object per line.
//! With `AIRLOCK_OTLP_ENDPOINT`, spans of requests, decisions, model
//! requests and tool runs go to an OpenTelemetry collector over OTLP/HTTP.
//! The spans are at debug level: without a collector nobody listens for
//! them, and they cost nothing.

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::WithExportConfig;
use opentelemetry_sdk::trace::SdkTracerProvider;
use opentelemetry_sdk::Resource;
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer, Registry};

/// The log's filter unless `AIRLOCK_LOG` says otherwise.
const LOG_FILTER: &str = "info,sqlx=warn";

/// What goes to the collector: Airlock's spans, and the log's events
/// within them.
const TRACE_FILTER: &str = "info,sqlx=warn,server=debug,engine=debug";

/// The collector's path for spans, after its base address.
const TRACES_PATH: &str = "/v1/traces";

/// The traces' pipeline, while there is one: shut it down before the
/// process ends, so the last spans are sent.
#[derive(Debug, Default)]
pub struct Telemetry {
    provider: Option<SdkTracerProvider>,
}

impl Telemetry {
    /// Sends the spans not sent yet, and stops.
    pub fn shutdown(self) {
        if let Some(provider) = self.provider {
            if let Err(e) = provider.shutdown() {
                eprintln!("the last spans could not be sent to the OTLP collector: {e}");
            }
        }
    }
}

/// How the log is written: `AIRLOCK_LOG` (its filter) and
/// `AIRLOCK_LOG_FORMAT` (`text` or `json`), read before anything else
/// starts. A value that is not one stops start-up, naming the setting: a
/// log that silently says less than asked is found out too late.
#[derive(Debug, Clone)]
pub struct LogSettings {
    filter: String,
    /// One JSON object per line, and nothing else on standard output.
    pub json: bool,
}

/// A log setting that is not one.
#[derive(Debug, thiserror::Error)]
pub enum LogSettingError {
    #[error("AIRLOCK_LOG={0:?} is not a log filter: {1}. Give a level (error, warn, info, debug, trace) or directives such as info,engine=debug")]
    Filter(String, String),
    #[error("AIRLOCK_LOG_FORMAT={0:?} is not a log format: give text or json")]
    Format(String),
}

impl LogSettings {
    /// The settings from the environment.
    pub fn from_env() -> Result<Self, LogSettingError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// The settings from `lookup`, which gives a variable's value.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, LogSettingError> {
        let filter = match lookup("AIRLOCK_LOG") {
            None => LOG_FILTER.to_owned(),
            Some(text) => match EnvFilter::try_new(&text) {
                Ok(_) if text.trim().is_empty() => {
                    let why = "it is empty, which would log nothing".to_owned();
                    return Err(LogSettingError::Filter(text, why));
                }
                Ok(_) => text,
                Err(e) => return Err(LogSettingError::Filter(text, e.to_string())),
            },
        };
        let json = match lookup("AIRLOCK_LOG_FORMAT").as_deref() {
            None | Some("text") => false,
            Some("json") => true,
            Some(other) => return Err(LogSettingError::Format(other.to_owned())),
        };
        Ok(Self { filter, json })
    }
}

/// Starts the log on `out` as `settings` say, and the traces when a
/// collector is named. Colours only go to a terminal.
pub fn init<W>(out: W, settings: &LogSettings) -> Telemetry
where
    W: for<'w> MakeWriter<'w> + Send + Sync + 'static,
{
    use std::io::IsTerminal;
    let filter = EnvFilter::new(&settings.filter);
    let terminal = std::io::stdout().is_terminal() && std::io::stderr().is_terminal();
    let lines = tracing_subscriber::fmt::layer()
        .with_writer(out)
        .with_ansi(terminal);
    let log: Box<dyn Layer<Registry> + Send + Sync> = match settings.json {
        true => lines.json().boxed(),
        false => lines.boxed(),
    };
    let endpoint = std::env::var("AIRLOCK_OTLP_ENDPOINT")
        .ok()
        .filter(|e| !e.is_empty());
    let (provider, failed) = match endpoint.as_deref().map(tracer_provider) {
        Some(Ok(provider)) => (Some(provider), None),
        Some(Err(e)) => (None, Some(e)),
        None => (None, None),
    };
    let traces = provider.as_ref().map(|provider| {
        tracing_opentelemetry::layer()
            .with_tracer(provider.tracer("airlock"))
            .with_filter(EnvFilter::new(TRACE_FILTER))
    });
    tracing_subscriber::registry()
        .with(log.with_filter(filter))
        .with(traces)
        .init();
    if let Some(e) = failed {
        tracing::error!(error = %e, "AIRLOCK_OTLP_ENDPOINT: spans are not sent anywhere");
    }
    if let Some(endpoint) = &endpoint {
        if provider.is_some() {
            tracing::info!(collector = %traces_url(endpoint), "sending spans over OTLP");
        }
    }
    Telemetry { provider }
}

/// A pipeline that batches spans and posts them to the collector at
/// `endpoint` (its base address, as `http://collector:4318`).
fn tracer_provider(endpoint: &str) -> anyhow::Result<SdkTracerProvider> {
    // The HTTP client takes the process's TLS provider, as the MCP
    // clients' do: ring.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_endpoint(traces_url(endpoint))
        .build()?;
    let resource = Resource::builder()
        .with_service_name("airlock")
        .with_attribute(opentelemetry::KeyValue::new(
            "service.version",
            engine::VERSION,
        ))
        .build();
    Ok(SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(resource)
        .build())
}

/// The address spans are posted to: the base address with `/v1/traces`,
/// unless it names that path already.
fn traces_url(endpoint: &str) -> String {
    let base = endpoint.trim_end_matches('/');
    match base.ends_with(TRACES_PATH) {
        true => base.to_owned(),
        false => format!("{base}{TRACES_PATH}"),
    }
}

#[cfg(test)]
mod tests {
    use super::{traces_url, LogSettingError, LogSettings};

    #[test]
    fn spans_go_to_the_collectors_traces_path() {
        assert_eq!(
            traces_url("http://collector:4318"),
            "http://collector:4318/v1/traces"
        );
        assert_eq!(
            traces_url("http://collector:4318/"),
            "http://collector:4318/v1/traces"
        );
        assert_eq!(
            traces_url("https://otel.example/v1/traces"),
            "https://otel.example/v1/traces"
        );
    }

    fn read(pairs: &[(&str, &str)]) -> Result<LogSettings, LogSettingError> {
        LogSettings::from_lookup(|name| {
            pairs
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        })
    }

    #[test]
    fn a_log_setting_that_is_not_one_is_refused_by_name() {
        assert!(!read(&[]).unwrap().json);
        assert!(read(&[("AIRLOCK_LOG_FORMAT", "json")]).unwrap().json);
        assert!(read(&[("AIRLOCK_LOG", "warn,engine=debug")]).is_ok());
        for (name, value) in [
            ("AIRLOCK_LOG", ""),
            ("AIRLOCK_LOG", "info,engine=loud"),
            ("AIRLOCK_LOG_FORMAT", "yaml"),
        ] {
            let refused = read(&[(name, value)]).unwrap_err().to_string();
            assert!(refused.starts_with(name), "{refused}");
        }
    }
}
