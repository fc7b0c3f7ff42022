//! What a waiting call would do, on its card: a file write's diff, a dry
//! run's answer, a command read apart. Added and removed lines are marked
//! by sign and by words for screen readers (`<ins>`, `<del>`), not by
//! colour alone; paths outside the command's folder are marked in words.

use leptos::prelude::*;

use crate::wire::{CommandItem, DiffItem, DryRunItem, FilePreviewItem, PreviewItem};

/// A call's preview; open while the call waits, folded once decided.
#[component]
pub fn CallPreview(preview: PreviewItem, waiting: bool) -> impl IntoView {
    let (title, body) = match preview {
        PreviewItem::FileWrite(file) => (format!("Changes to {}", file.path), file_view(file)),
        PreviewItem::DryRun(run) => ("Dry run".to_owned(), dry_run_view(run)),
        PreviewItem::Command(command) => ("Command".to_owned(), command_view(command)),
    };
    view! {
        <details class="preview" open=waiting>
            <summary>"Preview: " {title.clone()}</summary>
            <section class="preview-body" aria-label=format!("Preview: {title}")>{body}</section>
        </details>
    }
}

fn file_view(file: FilePreviewItem) -> AnyView {
    let words = file.change.words();
    let diff = file.change.diff().cloned();
    view! {
        {file.renewed.then(|| view! {
            <p class="preview-renewed" role="status">
                "The file changed since its preview was first shown: this is the diff now. Look again before approving."
            </p>
        })}
        <p class="preview-words">{words}</p>
        {diff.map(|d| diff_view(d, &file.path))}
    }
    .into_any()
}

fn dry_run_view(run: DryRunItem) -> AnyView {
    let said = match (run.failed, &run.diff) {
        (true, _) => "The dry run failed. The tool said:".to_owned(),
        (false, Some(diff)) => format!("The tool's own dry run: {}.", diff.totals()),
        (false, None) => "The tool's own dry run answered:".to_owned(),
    };
    let output = run.output.clone();
    view! {
        {run.renewed.then(|| view! {
            <p class="preview-renewed" role="status">
                "The dry run answers differently than when it was first shown: this is its answer now."
            </p>
        })}
        <p class="preview-words">{said}</p>
        {match run.diff {
            Some(diff) => diff_view(diff, "the dry run"),
            None => view! { <pre class="preview-output">{output}</pre> }.into_any(),
        }}
    }
    .into_any()
}

/// The lines of a diff, hunk by hunk.
fn diff_view(diff: DiffItem, what: &str) -> AnyView {
    let omitted = (diff.omitted > 0).then(|| format!("{} more lines are not shown.", diff.omitted));
    let hunks = diff.hunks.into_iter().map(|hunk| {
        let place = hunk.place();
        let lines = hunk.lines.into_iter().map(|line| match line.tag.as_str() {
            "added" => view! {
                <ins class="diff-line"><span class="diff-sign" aria-hidden="true">"+"</span><span class="visually-hidden">"added: "</span>{line.text}</ins>
            }.into_any(),
            "removed" => view! {
                <del class="diff-line"><span class="diff-sign" aria-hidden="true">"-"</span><span class="visually-hidden">"removed: "</span>{line.text}</del>
            }.into_any(),
            _ => view! {
                <span class="diff-line"><span class="diff-sign" aria-hidden="true">" "</span>{line.text}</span>
            }.into_any(),
        }).collect_view();
        view! {
            <div class="diff-hunk">
                <p class="diff-place">{place}</p>
                <pre class="diff">{lines}</pre>
            </div>
        }
    }).collect_view();
    view! {
        <div class="diff-hunks" role="group" aria-label=format!("Diff of {what}")>{hunks}</div>
        {omitted.map(|o| view! { <p class="preview-words">{o}</p> })}
    }
    .into_any()
}

fn command_view(command: CommandItem) -> AnyView {
    let outside = command.reaches_outside();
    let folder = command.folder_words();
    let warnings = command.warnings.clone();
    let steps = command
        .steps
        .into_iter()
        .map(|step| {
            let then = step.then_words();
            let words = step
                .arguments
                .into_iter()
                .chain(step.redirects)
                .map(|w| {
                    let mark = w.outside.then(
                        || view! { <span class="outside-mark">" (outside the folder)"</span> },
                    );
                    view! { <li class:outside=w.outside><code>{w.text}</code>{mark}</li> }
                })
                .collect_view();
            view! {
                <li class="command-step">
                    <p>"Runs " <code class="command-program">{step.program}</code>
                        {then.map(|t| view! { <span class="command-then">{t}</span> })}
                    </p>
                    <ul class="command-words" aria-label="Its arguments">{words}</ul>
                </li>
            }
        })
        .collect_view();
    view! {
        <pre class="preview-output">{command.command}</pre>
        <p class="preview-words">{folder}
            {outside.then_some(" Some paths lie outside it: they are marked.")}
        </p>
        <ol class="command-steps">{steps}</ol>
        {(!warnings.is_empty()).then(|| view! {
            <ul class="preview-warnings" aria-label="What the steps do not show">
                {warnings.into_iter().map(|w| view! { <li>{w}</li> }).collect_view()}
            </ul>
        })}
    }
    .into_any()
}
