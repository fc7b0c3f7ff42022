// Signing in with the `auth:` block: a page asked for without a session
// leads to the sign-in page and back; the header names the person, who
// can sign out; a wrong password is refused without saying which part.
import { test, expect, AirlockServer } from './fixtures';

const PASSWORD = 'correct horse battery';

test('a person signs in, lands where they were going, and signs out', async ({ page }) => {
  const server = await AirlockServer.start('auth:\n  passwords: true\n');
  try {
    server.addPerson('ana', PASSWORD, '--display-name', 'Ana Lima');
    await page.goto(`${server.url}/approvals`);
    await expect(page).toHaveURL(/\/sign-in\?next=\/approvals$/);
    await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();

    await page.getByLabel('Name').fill('ana');
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert')).toHaveText('the name or the password is not right');

    await page.getByLabel('Name').fill('ana');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page).toHaveURL(`${server.url}/approvals`);
    await expect(page.getByRole('banner')).toContainText('Ana Lima');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page).toHaveURL(/\/sign-in$/);
    await page.goto(`${server.url}/`);
    await expect(page).toHaveURL(/\/sign-in\?next=\/$/);
  } finally {
    await server.stop();
    server.dispose();
  }
});

test('a fresh install prints a setup link that adds the first administrator, once', async ({ page }) => {
  const server = await AirlockServer.start('auth:\n  passwords: true\n');
  try {
    const link = server.setupLink();
    await page.goto(link);
    await expect(page.getByRole('heading', { name: 'Set up Airlock' })).toBeVisible();
    await page.getByLabel('Name', { exact: true }).fill('ana');
    await page.getByLabel('Display name').fill('Ana Lima');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Password again').fill('a different password');
    await page.getByRole('button', { name: 'Add me as administrator' }).click();
    await expect(page.getByRole('alert')).toHaveText('the two passwords differ');

    await page.goto(link);
    await page.getByLabel('Name', { exact: true }).fill('ana');
    await page.getByLabel('Display name').fill('Ana Lima');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Password again').fill(PASSWORD);
    await page.getByRole('button', { name: 'Add me as administrator' }).click();
    await expect(page).toHaveURL(`${server.url}/`);
    await expect(page.getByRole('banner')).toContainText('Ana Lima');
    await expect(page.getByRole('link', { name: 'People' })).toBeVisible();

    // Spent: the link refuses a second administrator.
    const other = await (await page.context().browser()!.newContext()).newPage();
    await other.goto(link);
    await other.getByLabel('Name', { exact: true }).fill('eve');
    await other.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await other.getByLabel('Password again').fill(PASSWORD);
    await other.getByRole('button', { name: 'Add me as administrator' }).click();
    await expect(other.getByRole('alert')).toContainText('this setup link is not valid');
  } finally {
    await server.stop();
    server.dispose();
  }
});

test('a person makes an API token on their account page and sees it once', async ({ page }) => {
  const server = await AirlockServer.start('auth:\n  passwords: true\n');
  try {
    server.addPerson('ana', PASSWORD, '--display-name', 'Ana Lima');
    await page.goto(`${server.url}/sign-in?next=/account`);
    await page.getByLabel('Name').fill('ana');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page).toHaveURL(`${server.url}/account`);
    await expect(page.getByText('You have no API tokens.')).toBeVisible();
    await page.getByLabel('What uses it').fill('deploy script');
    await page.getByRole('button', { name: 'Make a token' }).click();
    const secret = page.getByLabel('Your token “deploy script”');
    await expect(secret).toHaveValue(/^airlock_pat_[\w-]{43}$/);
    await page.reload();
    const list = page.getByRole('list', { name: 'API tokens' });
    await expect(list).toContainText('deploy script');
    await expect(page.getByLabel('Your token “deploy script”')).toHaveCount(0);
    await list.getByRole('button', { name: 'Revoke' }).click();
    await expect(page.getByText('You have no API tokens.')).toBeVisible();
  } finally {
    await server.stop();
    server.dispose();
  }
});
