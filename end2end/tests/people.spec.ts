// The people page: an administrator adds someone with their e-mail
// address (how a press in Slack finds them), sees it listed, changes it,
// and is told when the address is someone else's already.
import { test, expect, AirlockServer } from './fixtures';
import { PASSWORD, signedIn } from './people';

const CONFIG = `
auth:
  passwords: true
`;

test('an administrator adds a person with their e-mail address, one person per address', async ({ browser }) => {
  const server = await AirlockServer.start(CONFIG);
  try {
    server.addPerson('ana', PASSWORD, '--admin', '--display-name', 'Ana Lima');
    const page = await signedIn(browser, server, 'ana', '/people');
    const add = page.getByRole('region', { name: 'Add a person' });
    await add.getByLabel('Name', { exact: true }).fill('bo');
    await add.getByLabel('Display name').fill('Bo Chen');
    await add.getByLabel(/E-mail/).fill(' Bo.Chen@Example.com ');
    await add.getByLabel('First password').fill(PASSWORD);
    await add.getByRole('button', { name: 'Add' }).click();
    const bo = page.getByRole('listitem').filter({ hasText: 'Bo Chen' });
    await expect(bo).toContainText('bo.chen@example.com');

    // Changed later, folded under the row until asked for.
    await bo.getByText('Change e-mail').click();
    await bo.getByLabel('E-mail of Bo Chen').fill('Bo@Example.com');
    await bo.getByRole('button', { name: 'Save' }).click();
    await expect(bo).toContainText('bo@example.com');
    await expect(bo).not.toContainText('bo.chen@example.com');

    await add.getByLabel('Name', { exact: true }).fill('cy');
    await add.getByLabel(/E-mail/).fill('bo@example.com');
    await add.getByLabel('First password').fill(PASSWORD);
    await add.getByRole('button', { name: 'Add' }).click();
    await expect(page.getByRole('alert')).toContainText('someone here already has bo@example.com');
    await expect(page.getByRole('listitem').filter({ hasText: 'cy' })).toHaveCount(0);
  } finally {
    await server.stop();
  }
});
