//! An agent's side of the gateway in tests: asking (a tool call or a
//! question), polling, and answering through a review link, as JSON or as
//! a review page's plain form.

/// Asks the gateway at `base` with API key `key` to run the call `body`
/// describes; the answer's JSON.
pub async fn ask_gateway(
    client: &reqwest::Client,
    base: &str,
    key: &str,
    body: serde_json::Value,
) -> serde_json::Value {
    gateway_answer(client, base, key, body).await.1
}

/// Like [`ask_gateway`], with the answer's status too.
pub async fn gateway_answer(
    client: &reqwest::Client,
    base: &str,
    key: &str,
    body: serde_json::Value,
) -> (u16, serde_json::Value) {
    post_with_key(client, &format!("{base}/api/v1/tool-calls"), key, body).await
}

/// Posts `body` to `url` with API key `key`: the answer's status and JSON.
async fn post_with_key(
    client: &reqwest::Client,
    url: &str,
    key: &str,
    body: serde_json::Value,
) -> (u16, serde_json::Value) {
    let res = client
        .post(url)
        .bearer_auth(key)
        .json(&body)
        .send()
        .await
        .unwrap();
    (res.status().as_u16(), res.json().await.unwrap())
}

/// Asks a person a question (`POST /api/v1/reviews`) at `base` with API
/// key `key`: the answer's status and JSON.
pub async fn ask_question(
    base: &str,
    key: &str,
    body: serde_json::Value,
) -> (u16, serde_json::Value) {
    let url = format!("{base}/api/v1/reviews");
    post_with_key(&reqwest::Client::new(), &url, key, body).await
}

/// The fields an `invalid_fields` answer names, in order.
pub fn problem_fields(body: &serde_json::Value) -> Vec<&str> {
    body["fields"]
        .as_array()
        .map(|list| list.iter().filter_map(|p| p["field"].as_str()).collect())
        .unwrap_or_default()
}

/// The poll answer for case `case_id` at `base`, asked with API key `key`.
pub async fn poll_case(base: &str, case_id: &str, key: &str) -> serde_json::Value {
    reqwest::Client::new()
        .get(format!("{base}/api/v1/reviews/{case_id}/status"))
        .bearer_auth(key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// A completed poll's `result` as the person gave it: without the receipt
/// Airlock signs the decision with (`signature`, see `tests/receipts.rs`),
/// which is there.
pub fn answer_of(result: &serde_json::Value) -> serde_json::Value {
    let mut answer = result.clone();
    let signature = answer.as_object_mut().and_then(|f| f.remove("signature"));
    assert!(
        signature.is_some_and(|s| s["value"].is_string()),
        "a receipt with {result}"
    );
    answer
}

/// Responds with `answer` through the review link of a gateway answer's
/// `hitl` object, at `base`; the answer's status.
pub async fn respond_by_link(
    base: &str,
    hitl: &serde_json::Value,
    answer: serde_json::Value,
) -> u16 {
    let (case, token) = review_link(hitl);
    reqwest::Client::new()
        .post(format!(
            "{base}/api/v1/reviews/{case}/respond?token={token}"
        ))
        .json(&answer)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

/// Posts a review page's form at `base` with `fields` and the link's token,
/// as a browser without JavaScript does: the status, where it redirects,
/// and the page.
pub async fn post_review_form(
    base: &str,
    hitl: &serde_json::Value,
    fields: &[(&str, &str)],
) -> (u16, Option<String>, String) {
    let (case, token) = review_link(hitl);
    let mut form: Vec<(&str, &str)> = vec![("token", &token)];
    form.extend_from_slice(fields);
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let res = client
        .post(format!("{base}/review/{case}"))
        .form(&form)
        .send()
        .await
        .unwrap();
    let status = res.status().as_u16();
    let location = res
        .headers()
        .get("location")
        .map(|l| l.to_str().unwrap().to_owned());
    (status, location, res.text().await.unwrap())
}

/// The review page a `hitl` object's link opens.
pub async fn review_page(hitl: &serde_json::Value) -> String {
    let url = hitl["review_url"].as_str().unwrap();
    reqwest::get(url).await.unwrap().text().await.unwrap()
}

/// The case id and the link token of a gateway answer's `hitl` object.
pub fn review_link(hitl: &serde_json::Value) -> (String, String) {
    let case = hitl["case_id"].as_str().expect("a case id");
    let url = hitl["review_url"].as_str().expect("a review URL");
    let token = url.split("token=").nth(1).expect("a token in the link");
    (case.to_owned(), token.to_owned())
}
