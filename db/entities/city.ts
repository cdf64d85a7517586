import { baseEntity, bilingualName, coordinates } from './base.js';

export const City = baseEntity('City', 'cities', {
  ...bilingualName(),
  ...coordinates(),
});
