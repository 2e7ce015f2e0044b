/** A brand's menu, or one store's view of it: staged price and availability edits, then Publish. */
import { useEffect, useState } from 'preact/hooks';
import { Empty, ErrorNotice, Loading, Page } from '../../components/ui.tsx';
import { useResource } from '../../hooks.ts';
import { href, useSearch } from '../../router.ts';
import { type Brand, listBrands, listStores, loadMenu, type MenuItem } from './api.ts';
import { CategoryDialog, ItemDialog } from './item-dialog.tsx';
import { ChangesBar, NoItems, Scope } from './menu-controls.tsx';
import { MenuTable } from './menu-table.tsx';
import type { Run } from './publish.ts';
import { PublishProgress } from './publish-progress.tsx';
import { useStaging } from './staging.ts';
import { usePublish } from './use-publish.ts';

const possessive = (name: string) => (name.endsWith('s') ? `${name}'` : `${name}'s`);

type Editing = { kind: 'add' } | { kind: 'edit'; item: MenuItem } | { kind: 'category' } | null;

export function MenuScreen() {
  const [search, setSearch] = useSearch();
  const brands = useResource((signal) => listBrands(signal), []);
  const wanted = search.get('brand_id');
  const brand = brands.data?.find((b) => b.id === wanted) ?? (wanted ? undefined : brands.data?.[0]);
  useEffect(() => {
    if (!wanted && brand) setSearch({ brand_id: brand.id });
  }, [wanted, brand?.id]);
  return (
    <Page
      title="Menu"
      subtitle="Each brand's menu, set once for all its stores, with a store's own prices where needed."
    >
      {brands.error !== undefined ? (
        <ErrorNotice error={brands.error} title="The brands could not be loaded" onRetry={brands.reload} />
      ) : !brands.data ? (
        <Loading label="Loading the brands…" />
      ) : brands.data.length === 0 ? (
        <Empty title="No brands yet" action={<a href={href('/stores')}>Go to the stores</a>}>
          A menu belongs to a brand: create the brand and its stores first, then come back to set its menu.
        </Empty>
      ) : (
        <BrandMenu key={brand?.id ?? wanted} brands={brands.data} brand={brand} />
      )}
    </Page>
  );
}

function BrandMenu(props: { brands: Brand[]; brand: Brand | undefined }) {
  const [search, setSearch] = useSearch();
  const brandId = props.brand?.id;
  const stores = useResource(
    (signal) => (brandId ? listStores(brandId, signal) : Promise.resolve([])),
    [brandId],
  );
  const menu = useResource(
    (signal) => (brandId ? loadMenu(brandId, signal) : Promise.resolve({ categories: [], items: [] })),
    [brandId],
  );
  const store = stores.data?.find((s) => s.id === search.get('location_id'));
  const staging = useStaging();
  const items = menu.data?.items ?? [];
  const publishing = usePublish({ brandId, storeId: store?.id, staging, items, reload: menu.reload });
  const [editing, setEditing] = useState<Editing>(null);
  const categoryId = search.get('category') ?? '';
  const closeDialog = (run: Run | null) => {
    setEditing(null);
    if (!run) return;
    publishing.follow(run);
    menu.reload();
  };

  if (!props.brand)
    return (
      <>
        <Scope brands={props.brands} brandId={undefined} stores={[]} locked={false} onChange={setSearch} />
        <Empty title="This brand is not in your organisation">Choose one of your brands above.</Empty>
      </>
    );
  const categories = menu.data?.categories ?? [];
  return (
    <>
      <Scope
        brands={props.brands}
        brandId={brandId}
        stores={stores.data ?? []}
        storeId={store?.id}
        categories={categories}
        categoryId={categoryId}
        locked={staging.count > 0 || publishing.busy}
        onChange={setSearch}
      />
      {stores.error !== undefined && (
        <ErrorNotice
          error={stores.error}
          title="The brand's stores could not be loaded"
          onRetry={stores.reload}
        />
      )}
      {publishing.runs.length > 0 && (
        <PublishProgress runs={publishing.runs} stores={stores.data ?? []} onDismiss={publishing.dismiss} />
      )}
      <ChangesBar
        count={staging.count}
        problems={publishing.problems.size}
        busy={publishing.busy}
        target={
          store
            ? `${possessive(store.name)} own prices and availability`
            : `${possessive(props.brand.name)} prices at every store`
        }
        onDiscard={staging.discard}
        onPublish={() => void publishing.publish()}
        onAdd={() => setEditing({ kind: 'add' })}
        onAddCategory={() => setEditing({ kind: 'category' })}
        canAdd={categories.length > 0}
      />
      {publishing.notice && (
        <div class="notice bad" role="alert">
          {publishing.notice}
        </div>
      )}
      {publishing.failure !== undefined && (
        <ErrorNotice
          error={publishing.failure}
          title="Some changes were not published; they are still staged below"
        />
      )}
      {menu.error !== undefined ? (
        <ErrorNotice error={menu.error} title="The menu could not be loaded" onRetry={menu.reload} />
      ) : !menu.data ? (
        <Loading label="Loading the menu…" />
      ) : (
        <MenuItems
          items={items.filter((i) => !categoryId || i.category_id === categoryId)}
          categories={categories}
          filtered={Boolean(categoryId)}
          storeId={store?.id}
          staging={staging}
          problems={publishing.problems}
          insist={publishing.insist}
          disabled={publishing.busy}
          onEdit={(item) => setEditing({ kind: 'edit', item })}
        />
      )}
      {(editing?.kind === 'add' || editing?.kind === 'edit') && (
        <ItemDialog
          brandId={props.brand.id}
          brandName={props.brand.name}
          categories={categories}
          item={editing.kind === 'edit' ? editing.item : undefined}
          onClose={closeDialog}
        />
      )}
      {editing?.kind === 'category' && (
        <CategoryDialog brandId={props.brand.id} brandName={props.brand.name} onClose={closeDialog} />
      )}
    </>
  );
}

function MenuItems(props: Parameters<typeof MenuTable>[0] & { filtered: boolean }) {
  if (props.items.length === 0)
    return <NoItems filtered={props.filtered} hasCategories={props.categories.length > 0} />;
  return <MenuTable {...props} />;
}
