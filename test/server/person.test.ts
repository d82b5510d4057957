// @test-kind pure: runs with the other pure files in one process (test/runner/plan.ts)
/**
 * Whose counts a call draws on (server/services/person.ts): a user's root keys, child keys and
 * JWTs are one person; a record without a user counts as its root key.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { personOf } from '../../server/services/person.ts';

const root = { id: 'key_00000000000000000001', user: 'ana', parent_id: null };
const child = { id: 'key_00000000000000000002', user: 'ana', parent_id: root.id };
const jwt = { id: 'jwt_3f1c', user: 'ana', parent_id: 'jwt:https://idp.example' };

test("a user's root key, child key and JWT are one person; another user is another", () => {
  assert.is(personOf(child), personOf(root));
  assert.is(personOf(jwt), personOf(root));
  assert.is(personOf({ ...root, id: 'key_00000000000000000009' }), personOf(root), 'two root keys of one user');
  assert.is.not(personOf({ ...root, user: 'bob' }), personOf(root));
});

test('a record without a user counts as its root key; a user named like a key id is still a user', () => {
  assert.is(personOf({ ...child, user: '' }), personOf({ ...root, user: '' }), 'a child with its parent');
  assert.is.not(personOf({ ...root, user: '' }), personOf({ ...root, id: 'key_00000000000000000009', user: '' }));
  assert.is.not(personOf({ ...jwt, user: '' }), personOf({ ...root, user: '' }), 'a token alone');
  assert.is.not(personOf({ ...root, user: root.id }), personOf({ ...root, user: '' }));
});

test.run();
