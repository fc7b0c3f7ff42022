// Four eyes: a call that needs two approvals, in two people's browsers. The
// first approval shows on both cards as "1 of 2", the first approver may
// not approve again, nobody is offered Always allow, and the second
// approval, through the review link signed in, runs the call.
import { test, expect, AirlockServer } from './fixtures';
import { PASSWORD, signedIn, startsConversation } from './people';

const CONFIG = `
auth:
  passwords: true
sources:
  demo:
    require_approval: [delete_file]
    auto_approved_tools: [list_directory, read_file]
    approvals_required: 2
`;

test('two approvers take a call that needs two from 1 of 2 to completed', async ({ browser }) => {
  const server = await AirlockServer.start(CONFIG);
  try {
    server.addPerson('rita', PASSWORD, '--display-name', 'Rita Reyes');
    server.addPerson('sam', PASSWORD, '--display-name', 'Sam Ito');

    const rita = await signedIn(browser, server, 'rita', '/');
    const chat = await startsConversation(rita, 'delete notes.txt');
    const ritasCard = rita.getByRole('article', { name: 'delete_file call' });
    await expect(ritasCard).toContainText('0 of 2 approvals');

    const sam = await signedIn(browser, server, 'sam', chat);
    const samsCard = sam.getByRole('article', { name: 'delete_file call' });
    await expect(samsCard).toContainText('0 of 2 approvals');

    // Rita approves: one of two, on both pages at once.
    await ritasCard.getByRole('button', { name: 'Approve', exact: true }).click();
    await expect(ritasCard).toContainText(/1 of 2 approvals: Rita Reyes \d\d:\d\d/);
    await expect(ritasCard).toContainText("You approved this call: it needs someone else's approval too.");
    await expect(ritasCard.getByRole('button', { name: 'Approve', exact: true })).toHaveCount(0);
    await expect(ritasCard).toHaveAttribute('data-status', 'pending_approval');
    await expect(samsCard).toContainText('1 of 2 approvals: Rita Reyes');
    await expect(samsCard).toContainText('needs 1 more, from any approver, not Rita Reyes');
    await rita.screenshot({ path: test.info().outputPath('quorum-1-of-2.png'), fullPage: true });

    // The inbox says the same.
    const inbox = await signedIn(browser, server, 'sam', '/approvals');
    await expect(inbox.getByRole('article', { name: 'delete_file call' })).toContainText('1 of 2 approvals: Rita Reyes');
    await inbox.context().close();

    // One person may not decide it for good: no Always allow.
    await expect(samsCard.getByRole('button', { name: 'Always allow' })).toHaveCount(0);
    await expect(samsCard.getByRole('button', { name: 'Edit arguments' })).toBeVisible();

    // Sam approves through its review link, in a browser without
    // JavaScript where nobody signed in: the link asks him to sign in, and
    // comes back to the review.
    await samsCard.getByRole('button', { name: 'Copy review link' }).click();
    const link = await samsCard.getByRole('textbox', { name: 'Review link' }).inputValue();
    const plain = await (await browser.newContext({ javaScriptEnabled: false })).newPage();
    await plain.goto(link);
    await expect(plain.getByRole('heading', { name: 'Sign in to review' })).toBeVisible();
    await expect(plain.getByRole('button', { name: 'Approve', exact: true })).toHaveCount(0);
    await plain.getByRole('link', { name: 'Sign in' }).click();
    await plain.getByLabel('Name').fill('sam');
    await plain.getByLabel('Password').fill(PASSWORD);
    await plain.getByRole('button', { name: 'Sign in' }).click();
    await expect(plain).toHaveURL(link);
    await plain.getByRole('button', { name: 'Approve', exact: true }).click();
    await expect(plain.getByRole('status').filter({ hasText: 'Approved by Sam Ito' })).toBeVisible();
    await plain.context().close();

    // The call runs, and both pages follow it.
    await expect(samsCard).toHaveAttribute('data-status', 'completed');
    await expect(ritasCard).toHaveAttribute('data-status', 'completed');
    await expect(ritasCard).toContainText(/2 of 2 approvals: Rita Reyes \d\d:\d\d, Sam Ito \d\d:\d\d/);
    await expect(rita.getByRole('list', { name: 'Messages' })).toContainText('I deleted notes.txt.');
  } finally {
    await server.stop();
    server.dispose();
  }
});
