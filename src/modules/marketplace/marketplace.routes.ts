import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { access, principalOf } from '../../http/access.js';
import { inRequestPart } from '../../http/errors.js';
import { actorOf } from '../audit/audit.service.js';
import {
  CreateListingBody,
  InstallResponse,
  LISTING_PAGE_DEFAULT,
  ListingDeletedResponse,
  ListingIdParams,
  ListingPage,
  ListingResponse,
  ListListingsQuery,
  ListRatingsQuery,
  RateBody,
  RatingPage,
  UpdateListingBody,
} from './marketplace.schemas.js';
import type { MarketplaceCaller, MarketplaceService } from './marketplace.service.js';

const tags = ['marketplace'];

function callerOf(request: FastifyRequest): MarketplaceCaller {
  const principal = principalOf(request);
  return {
    ownerId: principal.ownerId,
    actor: actorOf(request),
  };
}

export function marketplaceRoutes(deps: { marketplace: MarketplaceService }): FastifyPluginAsyncTypebox {
  const { marketplace } = deps;
  return async (app) => {
    const config = { access: access.scope('marketplace') };

    app.get(
      '/api/v1/marketplace/listings',
      {
        config,
        schema: {
          operationId: 'listMarketplaceListings',
          summary: "Browse every publisher's listings: filter by type or words, sort by newest, rating or installs, paged by cursor",
          description: 'Items carry every listing field except `snapshot` (the published content), which GET /api/v1/marketplace/listings/{id} shows.',
          tags,
          querystring: ListListingsQuery,
          response: { 200: ListingPage },
        },
      },
      async (request) => {
        const { limit = LISTING_PAGE_DEFAULT, ...rest } = request.query;
        const page = await inRequestPart('querystring', marketplace.list({ ...rest, limit }));
        return { data: page.listings, nextCursor: page.nextCursor };
      },
    );

    app.post(
      '/api/v1/marketplace/listings',
      {
        config: { ...config, actionClass: 'marketplace.write' },
        schema: {
          operationId: 'createMarketplaceListing',
          summary: 'Publish one of your skills or personas; the listing keeps a snapshot of it as it is now',
          description:
            'The token also needs the `skills` scope to publish a skill, or `personas` to publish a persona. Listings are free (`price` is 0). One listing per original: publishing it again answers 409; refresh the existing listing instead.',
          tags,
          body: CreateListingBody,
          response: { 201: ListingResponse },
        },
      },
      async (request, reply) => reply.status(201).send({ data: await inRequestPart('body', marketplace.create(callerOf(request), request.body)) }),
    );

    app.get(
      '/api/v1/marketplace/listings/:id',
      {
        config,
        schema: {
          operationId: 'getMarketplaceListing',
          summary: 'One listing with its published snapshot (any publisher)',
          tags,
          params: ListingIdParams,
          response: { 200: ListingResponse },
        },
      },
      async (request) => ({ data: await marketplace.get(request.params.id) }),
    );

    app.put(
      '/api/v1/marketplace/listings/:id',
      {
        config: { ...config, actionClass: 'marketplace.write' },
        schema: {
          operationId: 'updateMarketplaceListing',
          summary: "Change your listing's title or description, or refresh its snapshot from the original",
          description: "Only the publisher; another publisher's listing answers 404. `refreshSnapshot: true` needs the `skills` or `personas` scope too.",
          tags,
          params: ListingIdParams,
          body: UpdateListingBody,
          response: { 200: ListingResponse },
        },
      },
      async (request) => ({ data: await marketplace.update(callerOf(request), request.params.id, request.body) }),
    );

    app.delete(
      '/api/v1/marketplace/listings/:id',
      {
        config: { ...config, actionClass: 'marketplace.write' },
        schema: {
          operationId: 'deleteMarketplaceListing',
          summary: 'Withdraw your listing; copies already installed stay with those who installed them',
          tags,
          params: ListingIdParams,
          response: { 200: ListingDeletedResponse },
        },
      },
      async (request) => ({ data: await marketplace.remove(callerOf(request), request.params.id) }),
    );

    app.post(
      '/api/v1/marketplace/listings/:id/rate',
      {
        config: { ...config, actionClass: 'marketplace.write' },
        schema: {
          operationId: 'rateMarketplaceListing',
          summary: 'Rate a listing 1 to 5, with an optional review; a second rating replaces your first',
          description: 'Publishers cannot rate their own listings (403). Answers the listing with its updated average and count.',
          tags,
          params: ListingIdParams,
          body: RateBody,
          response: { 200: ListingResponse },
        },
      },
      async (request) => ({ data: await marketplace.rate(principalOf(request).ownerId, request.params.id, request.body) }),
    );

    app.get(
      '/api/v1/marketplace/listings/:id/ratings',
      {
        config,
        schema: {
          operationId: 'listMarketplaceListingRatings',
          summary: "A listing's ratings and reviews, most recently rated first",
          tags,
          params: ListingIdParams,
          querystring: ListRatingsQuery,
          response: { 200: RatingPage },
        },
      },
      async (request) => {
        const { limit = LISTING_PAGE_DEFAULT, cursor } = request.query;
        const page = await marketplace.listRatings(request.params.id, { limit, cursor });
        return { data: page.ratings, nextCursor: page.nextCursor };
      },
    );

    app.post(
      '/api/v1/marketplace/listings/:id/install',
      {
        config: { ...config, actionClass: 'marketplace.write' },
        schema: {
          operationId: 'installMarketplaceListing',
          summary: "Copy the listing's snapshot into your account as a new skill or persona",
          description:
            'Needs the `skills` or `personas` scope too, by the listing type. A skill copy keeps `origin: { type: "installed", listingId, installedAt, snapshotAt }` and needs a free name (409 when you already have a skill of that name); a persona copy is a new, inactive persona.',
          tags,
          params: ListingIdParams,
          response: { 201: InstallResponse },
        },
      },
      async (request, reply) => reply.status(201).send({ data: await marketplace.install(callerOf(request), request.params.id) }),
    );

    app.get(
      '/api/v1/marketplace/my-listings',
      {
        config,
        schema: {
          operationId: 'listMyMarketplaceListings',
          summary: 'Your own listings, with the same filters, sorts and paging as the marketplace',
          tags,
          querystring: ListListingsQuery,
          response: { 200: ListingPage },
        },
      },
      async (request) => {
        const { limit = LISTING_PAGE_DEFAULT, ...rest } = request.query;
        const page = await inRequestPart('querystring', marketplace.listMine(principalOf(request).ownerId, { ...rest, limit }));
        return { data: page.listings, nextCursor: page.nextCursor };
      },
    );
  };
}
