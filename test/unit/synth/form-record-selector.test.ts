// A record read from its edit form (html-form-record.ts), on a page of our own: the form is found
// again on another record's page, whose form has its own id and address (Rails' `edit_user_5`
// posting to `/users/5`), never by the recorded record's.
import { describe, expect, it } from 'vitest';
import { extractHtml } from '../../../src/synth/html-extract.js';
import { readRule as read } from '../../helpers/saved-recordings.js';

const page = (id: number, login: string, first: string) => `<html><body><div id="header"><a href="/">Home</a></div>
<div id="content"><h2>Users » ${login}</h2>
<form class="edit_user" id="edit_user_${id}" action="/users/${id}" method="post">
  <input type="hidden" name="authenticity_token" value="tok${id}abcdefabcdefabcdef">
  <p><label for="user_login">Login</label><input id="user_login" name="user[login]" value="${login}"></p>
  <p><label for="user_firstname">First name</label><input id="user_firstname" name="user[firstname]" value="${first}"></p>
  <p><label for="user_mail">Email</label><input id="user_mail" name="user[mail]" value="${login}@orchard.test"></p>
  <input type="submit" name="commit" value="Save">
</form></div></body></html>`;

describe('a record read from its edit form', () => {
  it("is found again on another record's page: not by the form's numbered id or its record's address", () => {
    const h = extractHtml(page(5, 'pruner', 'Pia'))!;
    expect(h.kind).toBe('detail');
    expect(h.extractor.selector).not.toMatch(/5/);
    expect(read(h.extractor, page(6, 'picker', 'Kai'))).toMatchObject({ login: 'picker', first_name: 'Kai', email: 'picker@orchard.test' });
  });
});
