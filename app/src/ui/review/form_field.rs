//! One field of a question's form, drawn as the HTML input of its type,
//! with its label, hint and problem linked to it for screen readers. Its
//! name is `f.` and its key, so the server reads it back as the form's.

use leptos::prelude::*;

use crate::wire::FieldItem;

/// A form field with the values entered so far and its problem, if any.
#[component]
pub fn FormFieldInput(
    field: FieldItem,
    /// What was posted (several for a multiselect), or `None` before
    /// anything was: then the field's default.
    values: Option<Vec<String>>,
    problem: Option<String>,
) -> impl IntoView {
    let id = format!("f-{}", field.key);
    let name = format!("f.{}", field.key);
    let hint_id = format!("{id}-hint");
    let error_id = format!("{id}-error");
    let described = [
        field.hint.as_ref().map(|_| hint_id.clone()),
        field.shown_when.as_ref().map(|_| format!("{id}-when")),
        problem.as_ref().map(|_| error_id.clone()),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(" ");
    let described = (!described.is_empty()).then_some(described);
    let invalid = problem.is_some().then_some("true");
    let values = values.unwrap_or_else(|| field.default.clone().into_iter().collect());
    // A sensitive value is never written back into the page's input: the
    // person types it again.
    let first = values.first().cloned().filter(|_| !field.sensitive);
    let input = match field.kind.as_str() {
        "textarea" => view! {
            <textarea id=id.clone() name=name required=field.required placeholder=field.placeholder.clone()
                minlength=field.min_length maxlength=field.max_length
                aria-describedby=described.clone() aria-invalid=invalid rows="4">{first.unwrap_or_default()}</textarea>
        }
        .into_any(),
        "boolean" => {
            let checked = values.iter().any(|v| v != "false");
            view! {
                <input type="checkbox" id=id.clone() name=name value="true" checked=checked
                    aria-describedby=described.clone() aria-invalid=invalid/>
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
                    aria-describedby=described.clone() aria-invalid=invalid>
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
                    aria-describedby=described.clone() aria-invalid=invalid/>
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
            {problem.map(|p| view! { <p class="field-error" id=error_id>{p}</p> })}
        </div>
    }
}
