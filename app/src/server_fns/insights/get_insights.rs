use leptos::prelude::*;
use leptos::server_fn::codec::GetUrl;

use crate::error::AppError;
use crate::wire::InsightsView;

/// The insights of the last `window`: `24h`, `7d` (the default) or `30d`.
#[server(prefix = "/api/fn", endpoint = "get_insights", input = GetUrl)]
pub async fn get_insights(
    #[server(default)] window: Option<String>,
) -> Result<InsightsView, AppError> {
    crate::state::allowed(engine::domain::Action::ReadAudit)?;
    let window = crate::server_fns::given(window).unwrap_or_else(|| "7d".to_owned());
    let length = match window.as_str() {
        "24h" => chrono::Duration::hours(24),
        "7d" => chrono::Duration::days(7),
        "30d" => chrono::Duration::days(30),
        other => {
            return Err(AppError::Invalid {
                field: "window".into(),
                message: format!("`{other}` is not a window: choose 24h, 7d or 30d"),
            })
        }
    };
    let engine = crate::state::engine();
    let report = engine.insights(length).await?;
    let shadowing = engine.config().shadow.is_some();
    Ok(InsightsView::of(&window, report, shadowing))
}
