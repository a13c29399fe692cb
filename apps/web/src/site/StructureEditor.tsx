import { useId, useRef, useState, type DragEvent, type FormEvent, type ReactNode } from 'react';
import { useMutation } from '@tanstack/react-query';
import type { components } from '@quire/api-types';
import { unwrap } from '@quire/client';
import { api } from '../api/client.js';
import { ErrorNotice, Loading } from '../layout/Feedback.js';
import { useOrganizationContent } from '../screens/OrganizationTree.js';
import { explain, allGroups, allSiteSpaces, sitePath, useSiteStructure, useStructureChanged, type SiteRef, type SiteSection, type SiteSectionGroup, type SiteSpace } from './site-api.js';

/*
 * The site's structure: its spaces, or its sections (tabs) and section groups holding them. Every item moves
 * among its siblings with Move up / Move down (the keyboard's way) or by dragging it onto a sibling; both are
 * one `sortSiteStructure` call, so the order is the server's, never a local guess.
 */

type Pointer = components['schemas']['SiteStructureItemPointer'];
type Item = SiteSpace | SiteSection | SiteSectionGroup;

const pointerOf = (item: Item): Pointer => ({ type: item.object, id: item.id });
const titleOf = (item: Item) => (item.object === 'site-space' ? item.title || item.space.title || 'Untitled space' : item.title);

/**
 * A button whose visible text says the action and whose accessible name also says which item: "Move up: Guides".
 * Unavailable (while a change saves, or Move up on the first item) it is aria-disabled, never disabled: a
 * disabled button drops the keyboard's focus to the page, and someone moving an item step by step would lose
 * their place at every step.
 */
function ItemButton({ label, item, onClick, disabled = false, className = 'quiet' }: { label: string; item: string; onClick: () => void; disabled?: boolean; className?: string }) {
  return (
    <button type="button" className={className} aria-disabled={disabled} onClick={() => disabled || onClick()} aria-label={`${label}: ${item}`}>
      {label}
    </button>
  );
}

interface Actions {
  busy: boolean;
  move: (item: Item, position: { before?: Pointer; after?: Pointer }) => void;
  run: (what: string, call: () => Promise<unknown>) => void;
}

/** Remove of one item of the structure, its refusal said as `refused` (the API's reason follows it). */
function RemoveButton({ item, actions, refused, remove }: { item: Item; actions: Actions; refused: string; remove: () => Parameters<typeof unwrap>[0] }) {
  return <ItemButton label="Remove" item={titleOf(item)} disabled={actions.busy} onClick={() => actions.run(refused, () => unwrap(remove()))} />;
}

/** The Move up / Move down buttons and drag and drop of one item among its siblings. */
function Orderable({ item, siblings, actions, head, children }: { item: Item; siblings: Item[]; actions: Actions; head: ReactNode; children?: ReactNode }) {
  const index = siblings.findIndex((sibling) => sibling.id === item.id);
  const previous = siblings[index - 1];
  const next = siblings[index + 1];
  const title = titleOf(item);
  const onDragStart = (event: DragEvent) => {
    event.stopPropagation();
    event.dataTransfer.setData('application/x-quire-site-item', JSON.stringify({ id: item.id, siblings: siblings.map((sibling) => sibling.id) }));
    event.dataTransfer.effectAllowed = 'move';
  };
  const dragged = (event: DragEvent): { id: string; siblings: string[] } | undefined => {
    const raw = event.dataTransfer.getData('application/x-quire-site-item');
    return raw ? (JSON.parse(raw) as { id: string; siblings: string[] }) : undefined;
  };
  const onDragOver = (event: DragEvent) => {
    if (event.dataTransfer.types.includes('application/x-quire-site-item')) event.preventDefault();
  };
  const onDrop = (event: DragEvent) => {
    const source = dragged(event);
    // Only among siblings: a drop elsewhere belongs to the item's own level (its parent's handler).
    if (!source || source.id === item.id || !source.siblings.includes(item.id)) return;
    event.preventDefault();
    event.stopPropagation();
    const moving = siblings.find((sibling) => sibling.id === source.id);
    if (!moving) return;
    const from = siblings.indexOf(moving);
    actions.move(moving, from < index ? { after: pointerOf(item) } : { before: pointerOf(item) });
  };
  return (
    <li className="structure-item" draggable onDragStart={onDragStart} onDragOver={onDragOver} onDrop={onDrop}>
      <div className="item-row">
        {head}
        <span className="item-actions">
          <ItemButton label="Move up" item={title} disabled={!previous || actions.busy} onClick={() => previous && actions.move(item, { before: pointerOf(previous) })} />
          <ItemButton label="Move down" item={title} disabled={!next || actions.busy} onClick={() => next && actions.move(item, { after: pointerOf(next) })} />
        </span>
      </div>
      {children}
    </li>
  );
}

/** The head of a structure row: what it is, its title, a badge, its path, then its own actions. */
function ItemHead({ kind, title, badge, path, children }: { kind?: string; title: string; badge?: string | undefined; path?: string; children: ReactNode }) {
  return (
    <>
      {kind ? <span className="item-kind">{kind}</span> : null}
      <span className="item-title">{title}</span>
      {badge ? <span className="badge">{badge}</span> : null}
      {path ? <span className="item-path">{path}</span> : null}
      <span className="item-actions">{children}</span>
    </>
  );
}

function SpaceList({ siteRef, siteSpaces, actions }: { siteRef: SiteRef; siteSpaces: SiteSpace[]; actions: Actions }) {
  return (
    <ol className="structure">
      {siteSpaces.map((siteSpace) => (
        <Orderable
          key={siteSpace.id}
          item={siteSpace}
          siblings={siteSpaces}
          actions={actions}
          head={
            <ItemHead title={titleOf(siteSpace)} badge={siteSpace.default ? 'Default space' : undefined} path={`/${siteSpace.path}`}>
              {siteSpace.default ? null : (
                <ItemButton
                  label="Make default"
                  item={titleOf(siteSpace)}
                  disabled={actions.busy}
                  onClick={() => actions.run('The default space was not changed', () => unwrap(api.PATCH('/orgs/{organizationId}/sites/{siteId}', { ...sitePath(siteRef), body: { defaultSiteSpace: siteSpace.id } })))}
                />
              )}
              <RemoveButton
                item={siteSpace}
                actions={actions}
                refused="The space was not removed"
                remove={() => api.DELETE('/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}', { params: { path: { ...siteRef, siteSpaceId: siteSpace.id } } })}
              />
            </ItemHead>
          }
        />
      ))}
    </ol>
  );
}

/** A select of the organization's spaces not yet on the site, and a button that adds the chosen one. */
function AddSpace({ label, button, spaces, onAdd, busy }: { label: string; button: string; spaces: Array<{ id: string; title: string }>; onAdd: (spaceId: string, title: string) => void; busy: boolean }) {
  const id = useId();
  const [chosen, setChosen] = useState('');
  const [title, setTitle] = useState('');
  const withTitle = button === 'Add section';
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (chosen) onAdd(chosen, title.trim());
    setChosen('');
    setTitle('');
  };
  if (spaces.length === 0) return <p className="help">Every space of the organization is already on this site.</p>;
  return (
    <form className="inline-form" onSubmit={submit}>
      <label htmlFor={`${id}-space`}>{label}</label>
      <select id={`${id}-space`} value={chosen} onChange={(event) => setChosen(event.target.value)}>
        <option value="">Choose a space</option>
        {spaces.map((space) => (
          <option key={space.id} value={space.id}>
            {space.title || 'Untitled space'}
          </option>
        ))}
      </select>
      {withTitle ? (
        <>
          <label htmlFor={`${id}-title`}>Section title</label>
          <input id={`${id}-title`} value={title} maxLength={128} placeholder="The space's title" onChange={(event) => setTitle(event.target.value)} />
        </>
      ) : null}
      <button type="submit" className="secondary" disabled={!chosen || busy}>
        {button}
      </button>
    </form>
  );
}

export function StructureEditor({ siteRef }: { siteRef: SiteRef }) {
  const id = useId();
  const structure = useSiteStructure(siteRef);
  const content = useOrganizationContent(siteRef.organizationId);
  const changed = useStructureChanged(siteRef);
  const [done, setDone] = useState('');
  const [groupTitle, setGroupTitle] = useState('');
  const headingRef = useRef<HTMLHeadingElement>(null);
  const change = useMutation({
    mutationFn: async ({ call }: { what: string; call: () => Promise<unknown> }) => call(),
    onSuccess: async () => {
      await changed();
      setDone('Saved.');
      // The control used may be gone (a removed item, a space made the default): keep the keyboard's place in the panel.
      if (document.activeElement === document.body) headingRef.current?.focus();
    },
    onError: async () => changed(),
  });
  const actions: Actions = {
    busy: change.isPending,
    run: (what, call) => {
      setDone('');
      change.mutate({ what, call });
    },
    move: (item, position) =>
      actions.run('The item was not moved', () => unwrap(api.PATCH('/orgs/{organizationId}/sites/{siteId}/structure/sort', { ...sitePath(siteRef), body: { item: pointerOf(item), position } }))),
  };

  if (structure.isPending) return <Loading label="Loading the site's structure" />;
  if (structure.isError) return <ErrorNotice title="The site's structure could not be loaded" error={structure.error} />;
  const onSite = new Set(allSiteSpaces(structure.data).map((siteSpace) => siteSpace.space.id));
  const available = (content.data?.spaces ?? []).filter((space) => !onSite.has(space.id));
  const groups = allGroups(structure.data);
  const addSpace = (sectionId?: string) => (spaceId: string) =>
    actions.run('The space was not added', () => unwrap(api.POST('/orgs/{organizationId}/sites/{siteId}/site-spaces', { ...sitePath(siteRef), body: { spaceId, ...(sectionId ? { sectionId } : {}) } })));
  const addSection = (spaceId: string, title: string) =>
    actions.run('The section was not added', () => unwrap(api.POST('/orgs/{organizationId}/sites/{siteId}/sections', { ...sitePath(siteRef), body: { spaceId, ...(title ? { title } : {}) } })));
  const addGroup = (event: FormEvent) => {
    event.preventDefault();
    const title = groupTitle.trim();
    if (!title) return;
    setGroupTitle('');
    actions.run('The section group was not added', () => unwrap(api.POST('/orgs/{organizationId}/sites/{siteId}/section-groups', { ...sitePath(siteRef), body: { title } })));
  };

  const renderLevel = (items: Array<SiteSection | SiteSectionGroup>): ReactNode => (
    <ol className="structure">
      {items.map((item) =>
        item.object === 'site-section' ? (
          <Orderable
            key={item.id}
            item={item}
            siblings={items}
            actions={actions}
            head={
              <ItemHead kind="Section" title={item.title} badge={item.default ? 'Default section' : undefined}>
                {item.default ? null : (
                  <ItemButton
                    label="Make default"
                    item={item.title}
                    disabled={actions.busy}
                    onClick={() =>
                      actions.run('The default section was not changed', () =>
                        unwrap(api.PATCH('/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}', { params: { path: { ...siteRef, siteSectionId: item.id } }, body: { default: true } })),
                      )
                    }
                  />
                )}
                <GroupChooser section={item} groups={groups} siteRef={siteRef} actions={actions} />
                <RemoveButton
                  item={item}
                  actions={actions}
                  refused="The section was not removed"
                  remove={() => api.DELETE('/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}', { params: { path: { ...siteRef, siteSectionId: item.id } } })}
                />
              </ItemHead>
            }
          >
            <SpaceList siteRef={siteRef} siteSpaces={item.siteSpaces} actions={actions} />
            {available.length > 0 ? <AddSpace label={`Add a space to ${item.title}`} button="Add space" spaces={available} busy={actions.busy} onAdd={addSpace(item.id)} /> : null}
          </Orderable>
        ) : (
          <Orderable
            key={item.id}
            item={item}
            siblings={items}
            actions={actions}
            head={
              <ItemHead kind="Group" title={item.title}>
                <RemoveButton
                  item={item}
                  actions={actions}
                  refused="The section group was not removed"
                  remove={() => api.DELETE('/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}', { params: { path: { ...siteRef, siteSectionGroupId: item.id } } })}
                />
              </ItemHead>
            }
          >
            {item.children.length > 0 ? renderLevel(item.children) : <p className="help">No section in this group yet: put one in with its “Group” choice.</p>}
          </Orderable>
        ),
      )}
    </ol>
  );

  const data = structure.data;
  return (
    <section aria-labelledby={`${id}-heading`} className="panel">
      <h2 id={`${id}-heading`} ref={headingRef} tabIndex={-1}>
        Spaces and sections
      </h2>
      <p className="help">Readers see sections as tabs and section groups as menus. Reorder with Move up and Move down, or drag an item onto another of its level.</p>
      {data.type === 'siteSpaces' ? (
        <>
          {data.structure.length === 0 ? <p>No space on this site yet: add one below.</p> : <SpaceList siteRef={siteRef} siteSpaces={data.structure} actions={actions} />}
          <AddSpace label="Add a space" button="Add space" spaces={available} busy={actions.busy} onAdd={addSpace()} />
        </>
      ) : (
        renderLevel(data.structure)
      )}
      <h3>Sections and groups</h3>
      <p className="help">
        {data.type === 'siteSpaces' ? 'A first section gathers the spaces above and the one you choose; add more sections after it.' : 'A section starts with one space; add more to it above.'}
      </p>
      <AddSpace label="New section from a space" button="Add section" spaces={available} busy={actions.busy} onAdd={addSection} />
      {data.type === 'sections' ? (
        <form className="inline-form" onSubmit={addGroup}>
          <label htmlFor={`${id}-group`}>New section group</label>
          <input id={`${id}-group`} value={groupTitle} maxLength={100} onChange={(event) => setGroupTitle(event.target.value)} />
          <button type="submit" className="secondary" disabled={!groupTitle.trim() || actions.busy}>
            Add group
          </button>
        </form>
      ) : null}
      {change.isPending ? <p role="status">Saving the structure…</p> : null}
      {done && !change.isPending ? <p role="status">{done}</p> : null}
      {change.isError ? <ErrorNotice title={change.variables?.what ?? 'The change was not made'} message={explain(change.error, "The structure shown is the site's current one; try again.")} /> : null}
    </section>
  );
}

/** Which group a section sits in (or none): choosing moves it there at once. */
function GroupChooser({ section, groups, siteRef, actions }: { section: SiteSection; groups: SiteSectionGroup[]; siteRef: SiteRef; actions: Actions }) {
  const id = useId();
  if (groups.length === 0) return null;
  return (
    <span className="group-chooser">
      <label htmlFor={id}>
        Group<span className="site-sr-only"> of {section.title}</span>
      </label>
      <select
        id={id}
        value={section.sectionGroup ?? ''}
        onChange={(event) => {
          if (actions.busy) return;
          const siteSectionGroupId = event.target.value || null;
          actions.run('The section was not moved to the group', () =>
            unwrap(api.PATCH('/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}', { params: { path: { ...siteRef, siteSectionId: section.id } }, body: { siteSectionGroupId } })),
          );
        }}
      >
        <option value="">None</option>
        {groups.map((group) => (
          <option key={group.id} value={group.id}>
            {group.title}
          </option>
        ))}
      </select>
    </span>
  );
}
