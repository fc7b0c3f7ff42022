//! A typed question answered under its card: the choices of a selection,
//! or a form of one step and a few fields, drawn from what the question
//! asks (read from the server, which knows the protocol) and posted to
//! `submit_answer`. A form in steps or a long one, or any form without
//! JavaScript, is answered on its review page instead.

use leptos::either::Either;
use leptos::prelude::*;

use crate::error::AppError;
use crate::server_fns::approvals::SubmitAnswer;
use crate::ui::common::form_field::FormFieldInput;
use crate::ui::common::post_form::{Post, PostForm};
use crate::wire::{action_label, AskedItem, ToolCallItem};

/// The answer form under a typed question's card, or `elsewhere` (where
/// it is answered instead) with the way to its page. The server draws the
/// way to the page, which works without JavaScript; the browser then reads
/// what the question asks with the bundle's own small fetch (the server
/// function's client, or a resource, would weigh far more) and draws the
/// form when the card can hold it.
#[component]
pub fn InlineAnswer(
    call_id: String,
    /// The card's answer, which tells the card when it is given.
    answer: Post<ToolCallItem>,
    elsewhere: String,
) -> impl IntoView {
    let asked = RwSignal::new(None::<AskedItem>);
    #[cfg(feature = "hydrate")]
    {
        let id = call_id.clone();
        Effect::new(move |_| {
            let id = id.clone();
            leptos::task::spawn_local(async move {
                use crate::server_fns::approvals::AskedForm;
                use leptos::server_fn::ServerFn;
                let path = format!("{}?call_id={id}", AskedForm::PATH);
                let read = crate::browser::post::get::<Option<AskedItem>>(&path).await;
                // Unread, the page stays the way to answer it.
                if let Ok(Some(item)) = read {
                    if item.fits_a_card() {
                        asked.try_set(Some(item));
                    }
                }
            });
        });
    }
    move || match asked.get() {
        Some(item) => Either::Left(view! {
            <CardForm call_id=call_id.clone() asked=item answer/>
            <AnswerOnItsPage call_id=call_id.clone() first=false/>
        }),
        None => Either::Right(view! {
            <p class="tool-decision">{elsewhere.clone()}</p>
            <AnswerOnItsPage call_id=call_id.clone() first=true/>
        }),
    }
}

/// The button that opens the question's review page (a new link each
/// time), the first way to answer it when the card holds no form.
#[component]
pub fn AnswerOnItsPage(call_id: String, first: bool) -> impl IntoView {
    let class = if first { "button primary" } else { "button" };
    view! {
        <form method="post" action=format!("/calls/{call_id}/review")>
            <button type="submit" class=class>"Answer on its page"</button>
        </form>
    }
}

/// The form itself, with each problem the server found beside its field.
#[component]
fn CardForm(call_id: String, asked: AskedItem, answer: Post<ToolCallItem>) -> impl IntoView {
    let problems = Memo::new(move |_| match answer.value().get() {
        Some(Err(AppError::InvalidFields { problems })) => problems,
        _ => Vec::new(),
    });
    let problem_of = move |key: &str| {
        let at = format!("data.{key}");
        Signal::derive(move || {
            problems.with(|all| {
                let found = all.iter().find(|p| p.field == at);
                found.map(|p| p.message.clone())
            })
        })
    };
    let busy = move || answer.pending().get();
    let body = match asked.case_type.as_str() {
        "selection" => {
            let single = asked.max == 1;
            let legend = asked.choose_words();
            let problem = problem_of("selected");
            let choices = asked
                .choices
                .iter()
                .map(|choice| {
                    view! {
                        <label class="choice">
                            <input type=if single { "radio" } else { "checkbox" } name="posted[selected][]" value=choice.id.clone()/>
                            <span class="choice-label">{choice.label.clone()}</span>
                            {choice.description.clone().map(|d| view! { <span class="choice-description">{d}</span> })}
                        </label>
                    }
                })
                .collect_view();
            Either::Left(view! {
                <fieldset class="choices" aria-invalid=move || problem.with(Option::is_some).then_some("true")>
                    <legend>{legend}</legend>
                    {choices}
                    {move || problem.get().map(|p| view! { <p class="field-error">{p}</p> })}
                </fieldset>
            })
        }
        _ => {
            let step = asked.steps.into_iter().next();
            let description = step
                .as_ref()
                .and_then(|s| s.description.clone())
                .map(|d| view! { <p class="field-hint">{d}</p> });
            let fields = step
                .into_iter()
                .flat_map(|s| s.fields)
                .map(|field| {
                    let problem = problem_of(&field.key);
                    let card = call_id.clone();
                    view! { <FormFieldInput field values=None problem card/> }
                })
                .collect_view();
            Either::Right(view! { {description} {fields} })
        }
    };
    let buttons = asked
        .actions
        .iter()
        .enumerate()
        .map(|(at, action)| {
            let class = if at == 0 { "button primary" } else { "button" };
            view! {
                <button type="submit" name="action" value=action.clone() class=class
                    formnovalidate={at > 0} disabled=busy>{action_label(action)}</button>
            }
        })
        .collect_view();
    view! {
        <PostForm to={answer.to::<SubmitAnswer>()} class="card-form answer-form">
            <input type="hidden" name="call_id" value=call_id/>
            {body}
            <div class="decide">{buttons}</div>
        </PostForm>
    }
}
