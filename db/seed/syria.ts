import type { StopKind } from '../entities/stop.js';

/**
 * Static geography of the demo world: Syrian cities with their real names and coordinates, the
 * public stops travellers board at, and the intercity corridors coaches run along (stop order,
 * road distance and running time). Coordinates of stops are close to the real places; they are
 * demo data, not a survey.
 */

export interface CityData {
  key: string;
  nameEn: string;
  nameAr: string;
  latitude: number;
  longitude: number;
}

export const CITIES: readonly CityData[] = [
  { key: 'damascus', nameEn: 'Damascus', nameAr: 'دمشق', latitude: 33.5138, longitude: 36.2765 },
  { key: 'aleppo', nameEn: 'Aleppo', nameAr: 'حلب', latitude: 36.2021, longitude: 37.1343 },
  { key: 'homs', nameEn: 'Homs', nameAr: 'حمص', latitude: 34.7324, longitude: 36.7137 },
  { key: 'hama', nameEn: 'Hama', nameAr: 'حماة', latitude: 35.1318, longitude: 36.7578 },
  { key: 'latakia', nameEn: 'Latakia', nameAr: 'اللاذقية', latitude: 35.5317, longitude: 35.7901 },
  { key: 'tartus', nameEn: 'Tartus', nameAr: 'طرطوس', latitude: 34.889, longitude: 35.8866 },
  { key: 'idlib', nameEn: 'Idlib', nameAr: 'إدلب', latitude: 35.9306, longitude: 36.6339 },
  { key: 'deir-ez-zor', nameEn: 'Deir ez-Zor', nameAr: 'دير الزور', latitude: 35.3359, longitude: 40.1408 },
  { key: 'raqqa', nameEn: 'Raqqa', nameAr: 'الرقة', latitude: 35.9594, longitude: 39.0079 },
  { key: 'daraa', nameEn: 'Daraa', nameAr: 'درعا', latitude: 32.6189, longitude: 36.1021 },
  { key: 'suwayda', nameEn: 'As-Suwayda', nameAr: 'السويداء', latitude: 32.709, longitude: 36.5695 },
  { key: 'hasakah', nameEn: 'Al-Hasakah', nameAr: 'الحسكة', latitude: 36.5024, longitude: 40.7477 },
];

export interface StopData {
  key: string;
  cityKey: string;
  kind: Exclude<StopKind, 'DEPOT'>;
  nameEn: string;
  nameAr: string;
  addressEn: string;
  addressAr: string;
  directionsEn: string;
  directionsAr: string;
  latitude: number;
  longitude: number;
}

/** Shared public stops (no owning company): two to four per city. */
export const PUBLIC_STOPS: readonly StopData[] = [
  {
    key: 'dam-sumariyah',
    cityKey: 'damascus',
    kind: 'BUS_STATION',
    nameEn: 'Al-Sumariyah Bus Station',
    nameAr: 'كراجات السومرية',
    addressEn: 'Mezzeh Highway, Al-Sumariyah, Damascus',
    addressAr: 'أوتستراد المزة، السومرية، دمشق',
    directionsEn:
      'At the western end of the Mezzeh highway by the Al-Sumariyah bridge; company desks are in the main hall.',
    directionsAr: 'في نهاية أوتستراد المزة الغربية بجانب جسر السومرية؛ مكاتب الشركات داخل الصالة الرئيسية.',
    latitude: 33.4975,
    longitude: 36.2265,
  },
  {
    key: 'dam-qaboun',
    cityKey: 'damascus',
    kind: 'BUS_STATION',
    nameEn: 'Al-Qaboun Pullman Station',
    nameAr: 'كراجات القابون',
    addressEn: 'Damascus–Homs International Road, Al-Qaboun, Damascus',
    addressAr: 'الطريق الدولي دمشق–حمص، القابون، دمشق',
    directionsEn:
      'At the northern exit of the city near the Harasta junction; northbound coaches board on the east platforms.',
    directionsAr: 'عند المخرج الشمالي للمدينة قرب عقدة حرستا؛ تنطلق حافلات الشمال من الأرصفة الشرقية.',
    latitude: 33.542,
    longitude: 36.329,
  },
  {
    key: 'dam-airport',
    cityKey: 'damascus',
    kind: 'AIRPORT',
    nameEn: 'Damascus International Airport',
    nameAr: 'مطار دمشق الدولي',
    addressEn: 'Airport Road, Rif Dimashq',
    addressAr: 'طريق المطار، ريف دمشق',
    directionsEn: 'Coaches stop in the arrivals hall car park, opposite exit 2.',
    directionsAr: 'تتوقف الحافلات في موقف صالة القادمين مقابل المخرج رقم 2.',
    latitude: 33.4114,
    longitude: 36.5156,
  },
  {
    key: 'dam-baramkeh',
    cityKey: 'damascus',
    kind: 'BOARDING_POINT',
    nameEn: 'Al-Baramkeh Boarding Point',
    nameAr: 'نقطة انطلاق البرامكة',
    addressEn: 'Al-Baramkeh Square near Damascus University, Damascus',
    addressAr: 'ساحة البرامكة قرب جامعة دمشق، دمشق',
    directionsEn:
      'In front of the old Baramkeh garage on the Faculty of Law side; look for the company flags.',
    directionsAr: 'أمام كراج البرامكة القديم من جهة كلية الحقوق؛ ابحث عن أعلام الشركات.',
    latitude: 33.5075,
    longitude: 36.2905,
  },
  {
    key: 'alp-ramouseh',
    cityKey: 'aleppo',
    kind: 'BUS_STATION',
    nameEn: 'Al-Ramouseh Bus Station',
    nameAr: 'كراجات الراموسة',
    addressEn: 'Al-Ramouseh, southern entrance of Aleppo',
    addressAr: 'الراموسة، المدخل الجنوبي لمدينة حلب',
    directionsEn:
      'At the southern entrance off the Damascus–Aleppo highway; the travel hall is behind the fuel station.',
    directionsAr: 'عند المدخل الجنوبي على أوتستراد دمشق–حلب؛ صالة السفر خلف محطة الوقود.',
    latitude: 36.1695,
    longitude: 37.146,
  },
  {
    key: 'alp-jabiri',
    cityKey: 'aleppo',
    kind: 'BOARDING_POINT',
    nameEn: 'Saadallah Al-Jabiri Square',
    nameAr: 'ساحة سعد الله الجابري',
    addressEn: 'Saadallah Al-Jabiri Square, Al-Aziziyah, Aleppo',
    addressAr: 'ساحة سعد الله الجابري، العزيزية، حلب',
    directionsEn: 'On the park side of the square, next to the tourist information office.',
    directionsAr: 'على جانب الحديقة من الساحة، بجانب مكتب الاستعلامات السياحية.',
    latitude: 36.2105,
    longitude: 37.152,
  },
  {
    key: 'alp-airport',
    cityKey: 'aleppo',
    kind: 'AIRPORT',
    nameEn: 'Aleppo International Airport',
    nameAr: 'مطار حلب الدولي',
    addressEn: 'Al-Nayrab, east of Aleppo',
    addressAr: 'النيرب، شرق حلب',
    directionsEn: 'Pick-up and drop-off on the departures forecourt.',
    directionsAr: 'الصعود والنزول أمام صالة المغادرين.',
    latitude: 36.1807,
    longitude: 37.2244,
  },
  {
    key: 'hom-station',
    cityKey: 'homs',
    kind: 'BUS_STATION',
    nameEn: 'Homs Pullman Station',
    nameAr: 'كراجات حمص (البولمان)',
    addressEn: 'Hama Road, Al-Khalidiyah, Homs',
    addressAr: 'طريق حماة، الخالدية، حمص',
    directionsEn:
      'On the northern edge of the city on the Hama road; through coaches use the left-hand platforms.',
    directionsAr: 'على الطرف الشمالي للمدينة على طريق حماة؛ تستخدم الحافلات العابرة الأرصفة اليسرى.',
    latitude: 34.756,
    longitude: 36.7085,
  },
  {
    key: 'hom-clock',
    cityKey: 'homs',
    kind: 'BOARDING_POINT',
    nameEn: 'New Clock Square',
    nameAr: 'ساحة الساعة الجديدة',
    addressEn: 'New Clock Square, city centre, Homs',
    addressAr: 'ساحة الساعة الجديدة، وسط المدينة، حمص',
    directionsEn: 'By the clock tower on the Shukri al-Quwatli Street side.',
    directionsAr: 'بجانب برج الساعة من جهة شارع شكري القوتلي.',
    latitude: 34.73,
    longitude: 36.7155,
  },
  {
    key: 'ham-station',
    cityKey: 'hama',
    kind: 'BUS_STATION',
    nameEn: 'Hama Bus Station',
    nameAr: 'كراجات حماة',
    addressEn: 'Damascus–Aleppo Highway service road, Hama',
    addressAr: 'الطريق الموازي لأوتستراد دمشق–حلب، حماة',
    directionsEn: 'West of the city beside the highway; through coaches stop at gate 1.',
    directionsAr: 'غرب المدينة بجانب الأوتستراد؛ تتوقف الحافلات العابرة عند البوابة 1.',
    latitude: 35.145,
    longitude: 36.7395,
  },
  {
    key: 'ham-assi',
    cityKey: 'hama',
    kind: 'BOARDING_POINT',
    nameEn: 'Al-Assi Square',
    nameAr: 'ساحة العاصي',
    addressEn: 'Al-Assi Square, Hama',
    addressAr: 'ساحة العاصي، حماة',
    directionsEn: 'Beside the Orontes bridge, a short walk from the norias.',
    directionsAr: 'بجانب جسر العاصي على بعد خطوات من النواعير.',
    latitude: 35.134,
    longitude: 36.7535,
  },
  {
    key: 'lat-pullman',
    cityKey: 'latakia',
    kind: 'BUS_STATION',
    nameEn: 'Latakia Pullman Station',
    nameAr: 'كراجات البولمان في اللاذقية',
    addressEn: 'Al-Thawra Street, Latakia',
    addressAr: 'شارع الثورة، اللاذقية',
    directionsEn:
      'East of the centre near the sports city roundabout; intercity coaches use the upper platforms.',
    directionsAr: 'شرق المركز قرب دوار المدينة الرياضية؛ تستخدم حافلات السفر الأرصفة العلوية.',
    latitude: 35.529,
    longitude: 35.8045,
  },
  {
    key: 'lat-daher',
    cityKey: 'latakia',
    kind: 'BOARDING_POINT',
    nameEn: 'Al-Sheikh Daher Square',
    nameAr: 'ساحة الشيخ ضاهر',
    addressEn: 'Al-Sheikh Daher, Latakia',
    addressAr: 'الشيخ ضاهر، اللاذقية',
    directionsEn: 'Opposite the main post office.',
    directionsAr: 'مقابل مبنى البريد الرئيسي.',
    latitude: 35.5185,
    longitude: 35.787,
  },
  {
    key: 'lat-airport',
    cityKey: 'latakia',
    kind: 'AIRPORT',
    nameEn: 'Latakia International Airport',
    nameAr: 'مطار اللاذقية الدولي',
    addressEn: 'Humaymim, south of Jableh',
    addressAr: 'حميميم، جنوب جبلة',
    directionsEn: 'Coach bay in the terminal car park.',
    directionsAr: 'موقف الحافلات في مرآب صالة المطار.',
    latitude: 35.4011,
    longitude: 35.9487,
  },
  {
    key: 'tar-station',
    cityKey: 'tartus',
    kind: 'BUS_STATION',
    nameEn: 'Tartus Bus Station',
    nameAr: 'كراجات طرطوس',
    addressEn: 'Eastern ring road, Tartus',
    addressAr: 'الطريق الدائري الشرقي، طرطوس',
    directionsEn: 'On the eastern ring road next to the traffic police building.',
    directionsAr: 'على الطريق الدائري الشرقي بجانب مبنى شرطة المرور.',
    latitude: 34.8935,
    longitude: 35.8975,
  },
  {
    key: 'tar-corniche',
    cityKey: 'tartus',
    kind: 'PARKING_POINT',
    nameEn: 'Tartus Corniche Parking',
    nameAr: 'موقف كورنيش طرطوس',
    addressEn: 'Sea Corniche, Tartus',
    addressAr: 'الكورنيش البحري، طرطوس',
    directionsEn: 'The car park facing the Arwad island ferry pier.',
    directionsAr: 'الموقف المقابل لمرفأ عبّارات جزيرة أرواد.',
    latitude: 34.886,
    longitude: 35.877,
  },
  {
    key: 'idl-station',
    cityKey: 'idlib',
    kind: 'BUS_STATION',
    nameEn: 'Idlib Bus Station',
    nameAr: 'كراجات إدلب',
    addressEn: 'Aleppo Road, Idlib',
    addressAr: 'طريق حلب، إدلب',
    directionsEn: 'At the north-east exit of the city on the Aleppo road.',
    directionsAr: 'عند المخرج الشمالي الشرقي للمدينة على طريق حلب.',
    latitude: 35.9365,
    longitude: 36.643,
  },
  {
    key: 'idl-clock',
    cityKey: 'idlib',
    kind: 'BOARDING_POINT',
    nameEn: 'Idlib Clock Square',
    nameAr: 'ساحة الساعة في إدلب',
    addressEn: 'Clock Square, Idlib city centre',
    addressAr: 'ساحة الساعة، وسط مدينة إدلب',
    directionsEn: 'Next to the clock tower on the municipality side.',
    directionsAr: 'بجانب برج الساعة من جهة مبنى البلدية.',
    latitude: 35.9295,
    longitude: 36.633,
  },
  {
    key: 'der-station',
    cityKey: 'deir-ez-zor',
    kind: 'BUS_STATION',
    nameEn: 'Deir ez-Zor Bus Station',
    nameAr: 'كراجات دير الزور',
    addressEn: 'Damascus Road, Deir ez-Zor',
    addressAr: 'طريق دمشق، دير الزور',
    directionsEn: 'At the south-western entrance of the city on the Palmyra road.',
    directionsAr: 'عند المدخل الجنوبي الغربي للمدينة على طريق تدمر.',
    latitude: 35.328,
    longitude: 40.125,
  },
  {
    key: 'der-airport',
    cityKey: 'deir-ez-zor',
    kind: 'AIRPORT',
    nameEn: 'Deir ez-Zor Airport',
    nameAr: 'مطار دير الزور',
    addressEn: 'Al-Jafra, south-east of Deir ez-Zor',
    addressAr: 'الجفرة، جنوب شرق دير الزور',
    directionsEn: 'Coaches wait at the terminal gate.',
    directionsAr: 'تنتظر الحافلات عند بوابة صالة المطار.',
    latitude: 35.2854,
    longitude: 40.176,
  },
  {
    key: 'raq-station',
    cityKey: 'raqqa',
    kind: 'BUS_STATION',
    nameEn: 'Raqqa Bus Station',
    nameAr: 'كراجات الرقة',
    addressEn: 'Al-Qouatli Street, Raqqa',
    addressAr: 'شارع القوتلي، الرقة',
    directionsEn: 'East of the old city walls near the Baghdad Gate.',
    directionsAr: 'شرق سور المدينة القديمة قرب باب بغداد.',
    latitude: 35.954,
    longitude: 39.018,
  },
  {
    key: 'raq-clock',
    cityKey: 'raqqa',
    kind: 'BOARDING_POINT',
    nameEn: 'Raqqa Clock Square',
    nameAr: 'ساحة الساعة في الرقة',
    addressEn: 'Clock Square, Raqqa',
    addressAr: 'ساحة الساعة، الرقة',
    directionsEn: 'At the clock tower, on the side of the Al-Naim roundabout.',
    directionsAr: 'عند برج الساعة من جهة دوار النعيم.',
    latitude: 35.9505,
    longitude: 39.0115,
  },
  {
    key: 'dar-station',
    cityKey: 'daraa',
    kind: 'BUS_STATION',
    nameEn: 'Daraa Bus Station',
    nameAr: 'كراجات درعا',
    addressEn: 'Damascus Road, Daraa al-Mahatta',
    addressAr: 'طريق دمشق، درعا المحطة',
    directionsEn: 'At the northern entrance of the city by the old Hejaz railway station.',
    directionsAr: 'عند المدخل الشمالي للمدينة قرب محطة الخط الحجازي القديمة.',
    latitude: 32.6265,
    longitude: 36.106,
  },
  {
    key: 'dar-balad',
    cityKey: 'daraa',
    kind: 'BOARDING_POINT',
    nameEn: 'Daraa al-Balad Boarding Point',
    nameAr: 'نقطة انطلاق درعا البلد',
    addressEn: 'Al-Omari Mosque street, Daraa al-Balad',
    addressAr: 'شارع الجامع العمري، درعا البلد',
    directionsEn: 'In the square in front of the Al-Omari Mosque.',
    directionsAr: 'في الساحة أمام الجامع العمري.',
    latitude: 32.6105,
    longitude: 36.1005,
  },
  {
    key: 'suw-station',
    cityKey: 'suwayda',
    kind: 'BUS_STATION',
    nameEn: 'As-Suwayda Bus Station',
    nameAr: 'كراجات السويداء',
    addressEn: 'Damascus Road, As-Suwayda',
    addressAr: 'طريق دمشق، السويداء',
    directionsEn: 'At the north-western entrance of the city on the Damascus road.',
    directionsAr: 'عند المدخل الشمالي الغربي للمدينة على طريق دمشق.',
    latitude: 32.716,
    longitude: 36.562,
  },
  {
    key: 'suw-centre',
    cityKey: 'suwayda',
    kind: 'BOARDING_POINT',
    nameEn: 'As-Suwayda Centre Boarding Point',
    nameAr: 'نقطة انطلاق وسط السويداء',
    addressEn: 'City centre, As-Suwayda',
    addressAr: 'وسط المدينة، السويداء',
    directionsEn: 'Beside the city hall, on the market side.',
    directionsAr: 'بجانب مبنى المحافظة من جهة السوق.',
    latitude: 32.7085,
    longitude: 36.568,
  },
  {
    key: 'has-station',
    cityKey: 'hasakah',
    kind: 'BUS_STATION',
    nameEn: 'Al-Hasakah Bus Station',
    nameAr: 'كراجات الحسكة',
    addressEn: 'Raqqa Road, Al-Hasakah',
    addressAr: 'طريق الرقة، الحسكة',
    directionsEn: 'At the western entrance of the city on the Raqqa road.',
    directionsAr: 'عند المدخل الغربي للمدينة على طريق الرقة.',
    latitude: 36.495,
    longitude: 40.739,
  },
  {
    key: 'has-centre',
    cityKey: 'hasakah',
    kind: 'BOARDING_POINT',
    nameEn: 'Al-Hasakah Centre Boarding Point',
    nameAr: 'نقطة انطلاق وسط الحسكة',
    addressEn: 'City centre, Al-Hasakah',
    addressAr: 'وسط المدينة، الحسكة',
    directionsEn: 'On the main square next to the Khabur river bridge.',
    directionsAr: 'في الساحة الرئيسية بجانب جسر نهر الخابور.',
    latitude: 36.504,
    longitude: 40.747,
  },
];

export interface CorridorCall {
  stopKey: string;
  /** Road distance from the first stop, in km. */
  km: number;
  /** Minutes from the first departure until the coach arrives here. */
  at: number;
  /** Minutes the coach waits here (0 at both ends). */
  dwell: number;
}

export interface Corridor {
  key: string;
  calls: readonly CorridorCall[];
}

const call = (stopKey: string, km: number, at: number, dwell = 0): CorridorCall => ({
  stopKey,
  km,
  at,
  dwell,
});

/**
 * Intercity corridors, written in one direction; coaches also run them in reverse. Daraa and
 * Latakia share no corridor, so travelling between them takes a change in Damascus.
 */
export const CORRIDORS: readonly Corridor[] = [
  {
    key: 'damascus-aleppo',
    calls: [
      call('dam-qaboun', 0, 0),
      call('hom-station', 162, 120, 15),
      call('ham-station', 209, 175, 10),
      call('alp-ramouseh', 350, 285, 10),
      call('alp-jabiri', 358, 305),
    ],
  },
  {
    key: 'damascus-latakia',
    calls: [
      call('dam-qaboun', 0, 0),
      call('hom-station', 162, 120, 15),
      call('tar-station', 255, 210, 10),
      call('lat-pullman', 340, 290, 10),
      call('lat-daher', 344, 305),
    ],
  },
  {
    key: 'aleppo-latakia',
    calls: [
      call('alp-ramouseh', 0, 0),
      call('idl-station', 60, 70, 10),
      call('lat-pullman', 185, 215, 10),
      call('lat-daher', 189, 230),
    ],
  },
  {
    key: 'damascus-daraa',
    calls: [
      call('dam-baramkeh', 0, 0),
      call('dam-sumariyah', 7, 20, 10),
      call('dar-station', 100, 110, 10),
      call('dar-balad', 104, 125),
    ],
  },
  {
    key: 'damascus-suwayda',
    calls: [
      call('dam-baramkeh', 0, 0),
      call('dam-airport', 27, 35, 10),
      call('suw-station', 106, 115, 10),
      call('suw-centre', 109, 125),
    ],
  },
  {
    key: 'damascus-homs',
    calls: [
      call('dam-baramkeh', 0, 0),
      call('dam-qaboun', 9, 25, 10),
      call('hom-station', 171, 145, 10),
      call('hom-clock', 175, 160),
    ],
  },
  {
    key: 'homs-tartus',
    calls: [
      call('hom-clock', 0, 0),
      call('hom-station', 4, 15, 10),
      call('tar-station', 95, 95, 10),
      call('tar-corniche', 98, 105),
    ],
  },
  {
    key: 'aleppo-deir-ez-zor',
    calls: [
      call('alp-jabiri', 0, 0),
      call('alp-airport', 12, 25, 10),
      call('raq-station', 195, 190, 20),
      call('der-station', 335, 330),
    ],
  },
  {
    key: 'aleppo-hasakah',
    calls: [
      call('alp-jabiri', 0, 0),
      call('raq-station', 195, 175, 20),
      call('has-station', 385, 355, 10),
      call('has-centre', 390, 370),
    ],
  },
  {
    key: 'deir-ez-zor-damascus',
    calls: [
      call('der-station', 0, 0),
      call('hom-station', 330, 270, 20),
      call('dam-qaboun', 492, 400, 10),
      call('dam-baramkeh', 501, 420),
    ],
  },
  {
    key: 'homs-idlib',
    calls: [
      call('hom-station', 0, 0),
      call('ham-station', 47, 50, 10),
      call('ham-assi', 50, 65, 5),
      call('idl-station', 150, 170, 10),
      call('idl-clock', 153, 180),
    ],
  },
  {
    key: 'hama-aleppo',
    calls: [
      call('ham-assi', 0, 0),
      call('ham-station', 3, 15, 10),
      call('alp-ramouseh', 141, 130, 10),
      call('alp-jabiri', 149, 150),
    ],
  },
  {
    key: 'latakia-tartus',
    calls: [
      call('lat-daher', 0, 0),
      call('lat-pullman', 4, 15, 10),
      call('lat-airport', 22, 45, 10),
      call('tar-station', 88, 110, 10),
      call('tar-corniche', 91, 120),
    ],
  },
];
