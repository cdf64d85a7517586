export { City } from './city.js';
export { Company } from './company.js';
export { Stop } from './stop.js';
export { PickupLocation } from './pickup-location.js';
export { Bus } from './bus.js';
export { BusLayout, LayoutSeat } from './bus-layout.js';
export { Route } from './route.js';
export { Trip, TripStopCall } from './trip.js';
export { SeatAllocation } from './seat-allocation.js';
export { JourneyQuote } from './journey-quote.js';

import { City } from './city.js';
import { Company } from './company.js';
import { Stop } from './stop.js';
import { PickupLocation } from './pickup-location.js';
import { Bus } from './bus.js';
import { BusLayout, LayoutSeat } from './bus-layout.js';
import { Route } from './route.js';
import { Trip, TripStopCall } from './trip.js';
import { SeatAllocation } from './seat-allocation.js';
import { JourneyQuote } from './journey-quote.js';

/** Every entity the ORM knows; later features add theirs here. */
export const allEntities = [
  City,
  Company,
  Stop,
  PickupLocation,
  Bus,
  BusLayout,
  LayoutSeat,
  Route,
  Trip,
  TripStopCall,
  SeatAllocation,
  JourneyQuote,
];
