import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@quire/client';
import type { components } from '@quire/api-types';
import { useState } from 'react';
import { api, errorMessage } from '../api/client.js';
import { all } from '../api/lists.js';
import { useSession } from '../api/queries.js';
import { ErrorNotice } from '../layout/Feedback.js';

type Space = components['schemas']['Space'];
type ChangeRequest = components['schemas']['ChangeRequest'];

const CONFLICT_KINDS: Record<string, string> = {
  content: 'the same part of its content was edited on both sides',
  title: 'its title was changed on both sides',
  properties: 'its settings were changed on both sides',
  structure: 'it was moved to different places',
  deleted: 'it was deleted on one side and edited on the other',
};

/** Why nothing was merged or pulled in: the pages changed on both sides, each with how. */
function ConflictList({ explanation, conflicts }: { explanation: string; conflicts: Array<{ page: string; kind: string; title?: string; path?: string }> }) {
  return (
    <div className="error" role="alert">
      <p>{explanation}</p>
      <ul>
        {conflicts.map((conflict) => (
          <li key={`${conflict.page}-${conflict.kind}`}>
            {conflict.title || conflict.path}: {CONFLICT_KINDS[conflict.kind] ?? conflict.kind}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** Request review, approve or ask for changes, merge (with every unmet merge rule said). */
export function ReviewPanel({ space, changeRequest }: { space: Space; changeRequest: ChangeRequest }) {
  const session = useSession();
  const queryClient = useQueryClient();
  const me = session.data?.user.id;
  const spaceId = space.id;
  const changeRequestId = changeRequest.id;
  const isAuthor = changeRequest.createdBy?.id === me;
  const active = changeRequest.status === 'open' || changeRequest.status === 'draft';
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['space', spaceId] });

  const members = useQuery({
    queryKey: ['organization', space.organization, 'members'],
    enabled: active && isAuthor,
    queryFn: () => all((page) => api.GET('/orgs/{organizationId}/members', { params: { path: { organizationId: space.organization }, query: { limit: 1000, ...(page ? { page } : {}) } } })),
  });
  const [chosen, setChosen] = useState<string[]>([]);
  const [filter, setFilter] = useState('');
  const requested = useQuery({
    queryKey: ['space', spaceId, 'change-request', changeRequestId, 'requested-reviewers'],
    enabled: active,
    queryFn: () => all((page) => api.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers', { params: { path: { spaceId, changeRequestId }, query: { limit: 100, ...(page ? { page } : {}) } } })),
  });
  const unrequest = useMutation({
    mutationFn: (userId: string) => unwrap(api.DELETE('/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers/{userId}', { params: { path: { spaceId, changeRequestId, userId } } })),
    onSuccess: refresh,
  });
  // Pulls what changed in the main content into the change request; conflicting pages are named, nothing changes.
  const updateFromMain = useMutation({
    mutationFn: () => unwrap(api.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/update', { params: { path: { spaceId, changeRequestId } } })),
    onSuccess: async (answer) => {
      if (answer.result === 'update') await queryClient.invalidateQueries({ queryKey: ['space', spaceId] });
      await queryClient.invalidateQueries({ queryKey: ['editor', spaceId, changeRequestId] });
    },
  });

  const requestReview = useMutation({
    mutationFn: async () => {
      // A draft is the writer's alone; asking for a review opens it.
      if (changeRequest.status === 'draft') {
        await unwrap(api.PATCH('/spaces/{spaceId}/change-requests/{changeRequestId}', { params: { path: { spaceId, changeRequestId } }, body: { status: 'open' } }));
      }
      return unwrap(api.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers', { params: { path: { spaceId, changeRequestId } }, body: { users: chosen } }));
    },
    onSuccess: async () => {
      setChosen([]);
      await refresh();
    },
  });
  const review = useMutation({
    mutationFn: (status: 'approved' | 'changes-requested') => unwrap(api.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/reviews', { params: { path: { spaceId, changeRequestId } }, body: { status } })),
    onSuccess: refresh,
  });
  const merge = useMutation({
    mutationFn: () => unwrap(api.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/merge', { params: { path: { spaceId, changeRequestId } } })),
    onSuccess: refresh,
  });

  const unmet = changeRequest.mergeability?.unmetRules ?? [];
  const alreadyAsked = new Set((requested.data ?? []).map((request) => request.user.id));
  const others = (members.data ?? []).filter((member) => member.user.id !== me && !alreadyAsked.has(member.user.id));
  const needle = filter.trim().toLowerCase();
  const matching = needle === '' ? others : others.filter((member) => member.user.displayName.toLowerCase().includes(needle) || (member.user.email ?? '').toLowerCase().includes(needle));

  return (
    <section aria-labelledby="review-title">
      <h2 id="review-title">Review</h2>
      {changeRequest.status === 'merged' ? <p className="notice">This change request is merged.</p> : null}
      {active && changeRequest.outdated ? (
        <div className="behind">
          <p>The main content changed since this change request started or was last updated.</p>
          <button type="button" className="secondary" disabled={updateFromMain.isPending} onClick={() => updateFromMain.mutate()}>
            Update from main
          </button>
        </div>
      ) : null}
      {updateFromMain.data?.result === 'update' ? <p role="status">Updated from main: it now holds the latest main content under your changes.</p> : null}
      {updateFromMain.data?.result === 'conflicts' ? (
        <ConflictList explanation="Nothing was pulled in: these pages changed on both sides. Change them here so they agree with main, then update again." conflicts={updateFromMain.data.conflicts} />
      ) : null}
      {updateFromMain.isError ? <ErrorNotice title="The change request was not updated" message={errorMessage(updateFromMain.error)} /> : null}
      {active && (requested.data?.length ?? 0) > 0 ? (
        <div>
          <h3>Review requested from</h3>
          <ul className="reviewers">
            {requested.data!.map((request) => (
              <li key={request.user.id}>
                {request.user.displayName}
                {isAuthor ? (
                  <button type="button" className="quiet" aria-label={`Remove ${request.user.displayName}`} disabled={unrequest.isPending} onClick={() => unrequest.mutate(request.user.id)}>
                    Remove
                  </button>
                ) : null}
              </li>
            ))}
          </ul>
          {unrequest.isError ? <ErrorNotice title="The reviewer was not removed" message={errorMessage(unrequest.error)} /> : null}
        </div>
      ) : null}
      {active && isAuthor ? (
        <fieldset>
          <legend>Reviewers</legend>
          {others.length === 0 && members.isSuccess ? <p>No one else to ask in this organization.</p> : null}
          {others.length > 5 ? (
            <>
              <label htmlFor="reviewer-filter">Find a member</label>
              <input id="reviewer-filter" type="search" value={filter} onChange={(event) => setFilter(event.target.value)} />
            </>
          ) : null}
          {matching.map((member) => (
            <label key={member.user.id} className="check">
              <input
                type="checkbox"
                checked={chosen.includes(member.user.id)}
                onChange={(event) => setChosen((current) => (event.target.checked ? [...current, member.user.id] : current.filter((id) => id !== member.user.id)))}
              />
              {member.user.displayName}
            </label>
          ))}
          <button type="button" disabled={chosen.length === 0 || requestReview.isPending} onClick={() => requestReview.mutate()}>
            Request review
          </button>
          {requestReview.isSuccess ? <p role="status">Review requested.</p> : null}
          {requestReview.isError ? <ErrorNotice title="The review could not be requested" message={errorMessage(requestReview.error)} /> : null}
        </fieldset>
      ) : null}
      {active && !isAuthor ? (
        <div className="actions">
          <button type="button" disabled={review.isPending} onClick={() => review.mutate('approved')}>
            Approve
          </button>
          <button type="button" className="secondary" disabled={review.isPending} onClick={() => review.mutate('changes-requested')}>
            Ask for changes
          </button>
          {review.isSuccess ? <p role="status">{review.variables === 'approved' ? 'You approved this change request.' : 'You asked for changes.'}</p> : null}
          {review.isError ? <ErrorNotice title="The review could not be sent" message={errorMessage(review.error)} /> : null}
        </div>
      ) : null}
      {active ? (
        <div className="merge">
          {unmet.length > 0 ? (
            <div className="unmet" role="note">
              <p>Merging needs:</p>
              <ul>
                {unmet.map((rule) => (
                  <li key={rule.rule}>{rule.message}</li>
                ))}
              </ul>
            </div>
          ) : null}
          <button type="button" disabled={merge.isPending} onClick={() => merge.mutate()}>
            Merge
          </button>
          {merge.data?.result === 'conflicts' ? (
            <ConflictList explanation="Nothing was merged: these pages changed in the main content too. Update the change request, resolve them, and merge again." conflicts={merge.data.conflicts} />
          ) : null}
          {merge.isError ? <ErrorNotice title="The change request was not merged" message={errorMessage(merge.error)} /> : null}
        </div>
      ) : null}
    </section>
  );
}
