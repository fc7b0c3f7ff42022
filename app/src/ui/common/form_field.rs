//! One field of a question's form, drawn as the HTML input of its type,
//! with its label, hint and problem linked to it for screen readers. Its
//! name is `f.` and its key, so the server reads it back as the form's; in
//! a chat card, `posted[f.key][]`, as the card's server function reads it.

use leptos::prelude::*;

use crate::wire::FieldItem;

/// A form field with the values entered so far and its problem, if any.
#[component]
pub fn FormFieldInput(
    field: FieldItem,
    /// What was posted (several for a multiselect), or `None` before
    /// anything was: then the field's default.
    values: Option<Vec<String>>,
    /// Its problem, if any; a card's form learns it after posting.
    #[prop(into)]
    problem: Signal<Option<String>>,
    /// The call whose card draws it, when it is in the chat, where several
    /// forms share the page: its id is made unique with it.
    #[prop(optional)]
    card: Option<String>,
) -> impl IntoView {
    let (id, name) = match &card {
        Some(call) => (
            format!("{call}-f-{}", field.key),
            format!("posted[f.{}][]", field.key),
        ),
        None => (format!("f-{}", field.key), format!("f.{}", field.key)),
    };
    let hint_id = format!("{id}-hint");
    let error_id = format!("{id}-error");
    let told = [
        field.hint.as_ref().map(|_| hint_id.clone()),
        field.shown_when.as_ref().map(|_| format!("{id}-when")),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>();
    let problem_id = error_id.clone();
    let described = Signal::derive(move || {
        let with_problem = problem.with(Option::is_some).then(|| problem_id.clone());
        let ids: Vec<String> = told.iter().cloned().chain(with_problem).collect();
        (!ids.is_empty()).then(|| ids.join(" "))
    });
    let invalid = move || problem.with(Option::is_some).then_some("true");
    let values = values.unwrap_or_else(|| field.default.clone().into_iter().collect());
    // A sensitive value is never written back into the page's input: the
    // person types it again.
    let first = values.first().cloned().filter(|_| !field.sensitive);
    let input = match field.kind.as_str() {
        "textarea" => view! {
            <textarea id=id.clone() name=name required=field.required placeholder=field.placeholder.clone()
                minlength=field.min_length maxlength=field.max_length
                aria-describedby=described aria-invalid=invalid rows="4">{first.unwrap_or_default()}</textarea>
        }
        .into_any(),
        "boolean" => {
            let checked = values.iter().any(|v| v != "false");
            view! {
                <input type="checkbox" id=id.clone() name=name value="true" checked=checked
                    aria-describedby=described aria-invalid=invalid/>
            }
            .into_any()
        }
        "select" | "multiselect" => {
            let multiple = field.kind == "multiselect";
            let chosen = values.clone();
            let options = field
                .options
                .iter()
                .map(|(value, label)| {
                    let selected = chosen.contains(value);
                    view! { <option value=value.clone() selected=selected>{label.clone()}</option> }
                })
                .collect_view();
            view! {
                <select id=id.clone() name=name multiple=multiple required=field.required
                    aria-describedby=described aria-invalid=invalid>
                    {(!multiple).then(|| view! { <option value="">"Choose…"</option> })}
                    {options}
                </select>
            }
            .into_any()
        }
        kind => {
            let kind = match kind {
                "number" | "range" | "date" | "email" | "url" => kind.to_owned(),
                _ if field.sensitive => "password".to_owned(),
                _ => "text".to_owned(),
            };
            let step = (kind == "number").then_some("any");
            view! {
                <input type=kind id=id.clone() name=name value=first required=field.required
                    placeholder=field.placeholder.clone() min=field.min.clone() max=field.max.clone()
                    minlength=field.min_length maxlength=field.max_length pattern=field.pattern.clone()
                    step=step autocomplete=field.sensitive.then_some("off")
                    aria-describedby=described aria-invalid=invalid/>
            }
            .into_any()
        }
    };
    let label = if field.required {
        format!("{} (required)", field.label)
    } else {
        field.label.clone()
    };
    view! {
        <div class="field" data-kind=field.kind.clone()>
            <label class="field-label" for=id.clone()>{label}</label>
            {input}
            {field.hint.map(|hint| view! { <p class="field-hint" id=hint_id>{hint}</p> })}
            {field.shown_when.map(|when| view! { <p class="field-hint" id=format!("{id}-when")>{when}</p> })}
            {move || problem.get().map(|p| view! { <p class="field-error" id=error_id.clone()>{p}</p> })}
        </div>
    }
}
