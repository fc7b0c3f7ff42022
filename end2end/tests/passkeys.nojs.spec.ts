import { test, expect, AirlockServer } from './fixtures';
import { PASSWORD } from './people';

test('without JavaScript, a passkey cannot be added nor a call that needs one approved, and both say so', async ({ page }) => {
  const server = await AirlockServer.start(`
auth:
  passwords: true
sources:
  demo:
    require_approval: [delete_file]
    step_up: passkey
`);
  try {
    server.addPerson('rita', PASSWORD);
    await page.goto(`${server.url}/sign-in?next=/account`);
    await page.getByLabel('Name').fill('rita');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByText('Adding a passkey needs JavaScript.')).toBeVisible();

    await page.goto(`${server.url}/`);
    await page.getByRole('button', { name: 'New conversation' }).click();
    await page.getByRole('textbox', { name: 'Message' }).fill('delete notes.txt');
    await page.getByRole('button', { name: 'Send' }).click();
    const card = page.getByRole('article', { name: 'delete_file call' });
    await expect(async () => {
      await page.reload();
      await expect(card).toHaveCount(1, { timeout: 500 });
    }).toPass();
    await expect(card).toContainText('A passkey needs JavaScript');
    await expect(card.getByRole('button', { name: 'Approve with passkey' })).toBeDisabled();
    await expect(card.getByRole('button', { name: 'Approve', exact: true })).toHaveCount(0);
  } finally {
    await server.stop();
  }
});
