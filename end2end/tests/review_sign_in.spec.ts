// A review link whose policy says `review_link: sign_in`: opened in a
// browser nobody signed in to, it asks to sign in, comes back to the link,
// and the approver's decision is theirs.
import { test, expect, AirlockServer } from './fixtures';

const PASSWORD = 'correct horse battery';
const CONFIG = `
auth:
  passwords: true
  groups:
    ops: [cy]
sources:
  demo:
    require_approval: [delete_file]
    approvers: [ops]
    review_link: sign_in
`;

test('a sign-in review link asks to sign in and comes back to the review', async ({ page, browser }) => {
  const server = await AirlockServer.start(CONFIG);
  try {
    server.addPerson('cy', PASSWORD, '--display-name', 'Cy Park');
    await page.goto(`${server.url}/sign-in`);
    await page.getByLabel('Name').fill('cy');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'New conversation' }).click();
    await page.getByRole('textbox', { name: 'Message' }).fill('delete notes.txt');
    await page.getByRole('button', { name: 'Send' }).click();
    const card = page.getByRole('article', { name: 'delete_file call' });
    await card.getByRole('button', { name: 'Copy review link' }).click();
    const link = await card.getByRole('textbox', { name: 'Review link' }).inputValue();

    const elsewhere = await (await browser.newContext()).newPage();
    await elsewhere.goto(link);
    await expect(elsewhere.getByRole('heading', { name: 'Sign in to review' })).toBeVisible();
    await elsewhere.getByRole('link', { name: 'Sign in' }).click();
    await elsewhere.getByLabel('Name').fill('cy');
    await elsewhere.getByLabel('Password').fill(PASSWORD);
    await elsewhere.getByRole('button', { name: 'Sign in' }).click();
    await expect(elsewhere).toHaveURL(link);
    const reviewCard = elsewhere.getByRole('article', { name: 'delete_file call' });
    await reviewCard.getByRole('button', { name: 'Approve', exact: true }).click();
    await expect(elsewhere.getByRole('status')).toContainText('Approved by Cy Park');
    await expect(card).toContainText('Approved by Cy Park');
  } finally {
    await server.stop();
    server.dispose();
  }
});
