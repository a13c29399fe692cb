import { unwrap } from '@quire/client';
import { useQuery } from '@tanstack/react-query';
import type { RenderedFile } from '@quire/render';
import { api } from '../api/client.js';
import { all } from '../api/lists.js';
import type { PageRef } from './autosave.js';
import { fileMarkdown } from './blocks.js';

/*
 * Images and files pasted, dropped or chosen in the editor go into the change request's files through the
 * content edit (`insert_files`, given inline in base64), then the page refers to them by their stable address
 * `/files/<id>`. The API takes files of up to 1 MB: a larger one is refused here, saying the limit, before
 * anything is sent.
 */

/** The API's largest file (MAX_FILE_BYTES of the server, "at most 1 MB" in the contract). */
export const MAX_UPLOAD_BYTES = 1024 * 1024;

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** Why a file cannot be uploaded, said to the writer, or undefined when it can. */
export function refusal(file: File): string | undefined {
  if (file.size > MAX_UPLOAD_BYTES) return `“${file.name}” is ${formatBytes(file.size)}; files can be at most 1 MB. Make it smaller (for an image: fewer pixels, or JPEG or WebP), then try again.`;
  if (file.size === 0) return `“${file.name}” is empty.`;
  return undefined;
}

function base64Of(file: File, onProgress: (fraction: number) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onprogress = (event) => event.lengthComputable && onProgress(event.loaded / event.total);
    reader.onerror = () => reject(reader.error ?? new Error(`“${file.name}” could not be read`));
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.readAsDataURL(file);
  });
}

/** Uploads `file` into the change request; answers the Markdown that shows or links it. */
export async function uploadFile(ref: PageRef, file: File, onProgress: (fraction: number) => void): Promise<string> {
  const base64 = await base64Of(file, (fraction) => onProgress(fraction / 2));
  // The name must be the last segment of an address: slashes and control characters are replaced.
  const name = file.name.replace(/[/\\\u0000-\u001f\u007f]/g, '-').replace(/^\.\.?$/, 'file') || 'file';
  const answer = await unwrap(api.POST('/spaces/{spaceId}/change-requests/{changeRequestId}/content', {
    params: { path: { spaceId: ref.spaceId, changeRequestId: ref.changeRequestId } },
    body: { changes: [{ operation: 'insert_files', files: [{ name, base64, ...(file.type ? { contentType: file.type } : {}) }] }] },
  }));
  onProgress(1);
  const stored = answer.insertedFiles?.[0];
  if (!stored) throw new Error(`The server kept no file for “${file.name}”.`);
  return fileMarkdown({ id: stored.id, name: stored.name, contentType: stored.contentType });
}

/** The change request's files as the renderer looks them up (`id:<fileId>`), for the preview. */
export function useChangeRequestFiles(ref: Pick<PageRef, 'spaceId' | 'changeRequestId'>) {
  return useQuery({
    queryKey: ['space', ref.spaceId, 'change-request', ref.changeRequestId, 'files'],
    queryFn: async () => {
      const items = await all((page) =>
        api.GET('/spaces/{spaceId}/change-requests/{changeRequestId}/content/files', {
          params: { path: { spaceId: ref.spaceId, changeRequestId: ref.changeRequestId }, query: { limit: 100, ...(page ? { page } : {}) } },
        }),
      );
      const files: Record<string, RenderedFile> = {};
      for (const file of items) {
        files[`id:${file.id}`] = { href: file.downloadURL, name: file.name, ...(file.dimensions ? { width: file.dimensions.width, height: file.dimensions.height } : {}) };
      }
      return files;
    },
  });
}
