/** `list_storage_classes`: StorageClasses with provisioner, binding mode and which one is the default. */
import { z } from 'zod';
import { BudgetedText } from './format/budget.ts';
import { failureFrom, success } from './tool-results.ts';
import type { ReadTool } from './tool.ts';

export interface StorageClassData {
  name: string;
  provisioner: string;
  isDefault: boolean;
  volumeBindingMode: string;
  reclaimPolicy: string;
  allowVolumeExpansion: boolean;
}

export interface StorageClassesData {
  storageClasses: StorageClassData[];
  defaultClass?: string;
}

const input = z.object({});

export const listStorageClassesTool: ReadTool<typeof input, StorageClassesData, 'list_storage_classes'> = {
  name: 'list_storage_classes',
  description:
    'Lists StorageClasses with provisioner, volume binding mode, reclaim policy and which is the default. Use it when a claim names a class ' +
    'that may not exist, or names none and the cluster may have no default.',
  input,
  risk: 'read',
  async run(_args, context) {
    const listed = await context.cluster.list('StorageClass', { maxItems: 500, signal: context.signal });
    if (!listed.ok) return failureFrom(listed.error);
    const storageClasses = listed.value.items
      .map((item): StorageClassData => ({
        name: item.metadata?.name ?? '',
        provisioner: item.provisioner,
        isDefault: item.metadata?.annotations?.['storageclass.kubernetes.io/is-default-class'] === 'true',
        volumeBindingMode: item.volumeBindingMode ?? 'Immediate',
        reclaimPolicy: item.reclaimPolicy ?? 'Delete',
        allowVolumeExpansion: item.allowVolumeExpansion ?? false,
      }))
      .sort((left, right) => left.name.localeCompare(right.name));
    const defaultClass = storageClasses.find((item) => item.isDefault)?.name;
    const text = new BudgetedText(context.outputBudgetBytes);
    text.add(`${storageClasses.length} StorageClass(es); default: ${defaultClass ?? 'none'}.`);
    for (const item of storageClasses) {
      if (
        !text.add(
          `${item.name}${item.isDefault ? ' (default)' : ''}: provisioner ${item.provisioner}, binding ${item.volumeBindingMode}, reclaim ${item.reclaimPolicy}${item.allowVolumeExpansion ? ', expandable' : ''}`,
        )
      )
        break;
    }
    return success(
      text.finish('the list is cut; few clusters have this many classes.'),
      { storageClasses, ...(defaultClass ? { defaultClass } : {}) } satisfies StorageClassesData,
      text.truncated,
    );
  },
};
