//! Logging through `tracing`: to stderr always, and policylens's own events at info and
//! above to the client as `window/logMessage`.

use tokio::sync::mpsc;
use tower_lsp_server::Client;
use tower_lsp_server::ls_types::MessageType;
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::EnvFilter;
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::util::SubscriberInitExt;

type Line = (MessageType, String);

/// Installs the subscriber (`POLICYLENS_LOG` filters stderr, default `warn`: editors show
/// stderr as errors, so information goes to the client as `window/logMessage` at its level)
/// and returns the receiving end of the client log channel.
pub fn init() -> mpsc::UnboundedReceiver<Line> {
    let (tx, rx) = mpsc::unbounded_channel();
    let filter = EnvFilter::try_from_env("POLICYLENS_LOG").unwrap_or_else(|_| EnvFilter::new("warn"));
    let stderr = tracing_subscriber::fmt::layer().with_writer(std::io::stderr).with_ansi(false).with_filter(filter);
    // A second server in the same process (tests) keeps the first subscriber.
    let _ = tracing_subscriber::registry().with(stderr).with(ClientLayer { tx }).try_init();
    rx
}

pub async fn forward(client: Client, mut rx: mpsc::UnboundedReceiver<Line>) {
    while let Some((typ, msg)) = rx.recv().await {
        client.log_message(typ, msg).await;
    }
}

struct ClientLayer {
    tx: mpsc::UnboundedSender<Line>,
}

impl<S: Subscriber> Layer<S> for ClientLayer {
    fn on_event(&self, event: &Event<'_>, _: Context<'_, S>) {
        let meta = event.metadata();
        // Only our own events: the framework's would echo its own log traffic back.
        if !meta.target().starts_with("policylens") || *meta.level() > Level::INFO {
            return;
        }
        let typ = match *meta.level() {
            Level::ERROR => MessageType::ERROR,
            Level::WARN => MessageType::WARNING,
            _ => MessageType::INFO,
        };
        let mut v = MessageVisitor(String::new());
        event.record(&mut v);
        let _ = self.tx.send((typ, v.0));
    }
}

struct MessageVisitor(String);

impl Visit for MessageVisitor {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.0 = format!("{value:?}");
        } else {
            self.0.push_str(&format!(" {}={value:?}", field.name()));
        }
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.0 = value.to_owned();
        } else {
            self.0.push_str(&format!(" {}={value}", field.name()));
        }
    }
}
